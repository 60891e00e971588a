"""Credentials: a revoked (or replaced) API key and an expired or logged-out token are refused by
every door (REST and WebSocket); no endpoint of the OpenAPI document answers without credentials
except the public ones; password guessing is throttled per email and per client address."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import websockets
from sqlalchemy.ext.asyncio import create_async_engine

from felt_gateway.identity import digest
from felt_gateway.login_throttle import LoginThrottle
from felt_gateway.store import tokens
from felt_runtime.redis import make_redis
from tests.gateway.conftest import AUTH_CACHE_SECONDS
from tests.support.gateway import unique_email
from tests.security.conftest import PASSWORD, SECRETS, agent, owner

#: what anyone may call: the rules, the lobby, signing up and logging in
PUBLIC = {
    ("GET", "/api/v2/poker/rules"),
    ("GET", "/api/v2/poker/games"),
    ("GET", "/api/v2/poker/ladder"),
    ("GET", "/api/v2/poker/matches/{match_id}"),
    ("GET", "/api/v2/poker/tournaments"),
    ("GET", "/api/v2/poker/tables"),
    ("POST", "/api/v2/accounts/signup"),
    ("POST", "/api/v2/accounts/login"),
}


SCHEME_TEXT = {
    "HTTPBearer": "An owner's login token (HUMAN) or an agent's API key (AGENT)",
    "APIKeyHeader": "An agent's API key",
}


async def refused_everywhere(room, http, secret: str) -> None:
    """401 over REST (bearer and X-API-Key) and close code 4401 on the WebSocket."""
    for headers in ({"Authorization": f"Bearer {secret}"}, {"X-API-Key": secret}):
        for path in ("/api/v2/poker/balance", "/api/v2/accounts/me"):
            r = await http.get(path, headers=headers)
            assert r.status_code == 401 and r.json()["code"] == "unauthorized", (path, r.text)
    for url, first in (
        (room.ws_url, json.dumps({"type": "auth", "token": secret})),
        (f"{room.ws_url}?token={secret}", None),
    ):
        async with websockets.connect(url) as ws:
            if first:
                await ws.send(first)
            err = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert err["type"] == "error" and err["code"] == "unauthorized", err
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_a_revoked_or_replaced_api_key_is_refused_by_every_door(room, http) -> None:
    me = await owner(http)
    bot = await agent(http, me)
    assert (await http.get("/api/v2/poker/balance", headers=bot["headers"])).status_code == 200  # now cached
    rotated = await http.post(f"/api/v2/accounts/agents/{bot['participantId']}/key", headers=me["headers"])
    assert rotated.status_code == 200
    new_key = rotated.json()["apiKey"]
    SECRETS.add(new_key)
    await refused_everywhere(room, http, bot["apiKey"])  # the replaced key: at once, cache or not
    assert (await http.get("/api/v2/poker/balance", headers={"X-API-Key": new_key})).status_code == 200
    assert (await http.delete(f"/api/v2/accounts/agents/{bot['participantId']}/key", headers=me["headers"])).json()[
        "revoked"
    ] == 1
    await refused_everywhere(room, http, new_key)


async def test_an_expired_or_logged_out_token_is_refused_by_every_door(room, http) -> None:
    me = await owner(http)
    assert (await http.get("/api/v2/accounts/me", headers=me["headers"])).status_code == 200  # now cached
    engine = create_async_engine(room.stack.database_url)
    try:
        async with engine.begin() as conn:  # its expiry passes (the clock, not a logout)
            done = await conn.execute(
                tokens.update()
                .where(tokens.c.token_hash == digest(me["token"]))
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
            assert done.rowcount == 1
    finally:
        await engine.dispose()
    await asyncio.sleep(AUTH_CACHE_SECONDS + 0.2)  # a cached authentication lasts at most this long
    await refused_everywhere(room, http, me["token"])

    other = await owner(http)
    assert (await http.post("/api/v2/accounts/logout", headers=other["headers"])).status_code == 204
    await refused_everywhere(room, http, other["token"])


async def test_no_endpoint_answers_without_valid_credentials(room, http) -> None:
    """Walk every operation of the OpenAPI document: without credentials, with garbage and with
    forged ones in both headers, everything but the public operations is 401."""
    doc = (await http.get("/openapi.json")).json()
    operations = [(m.upper(), p) for p, item in doc["paths"].items() for m in item]
    assert len(operations) >= 25 and PUBLIC <= set(operations)
    # ... and the document says so: either scheme on every other operation, none on the public ones
    assert doc["components"]["securitySchemes"] == {
        "HTTPBearer": {"type": "http", "scheme": "bearer", "description": SCHEME_TEXT["HTTPBearer"]},
        "APIKeyHeader": {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": SCHEME_TEXT["APIKeyHeader"],
        },
    }
    for method, template in operations:
        documented = doc["paths"][template][method.lower()].get("security")
        assert documented == (None if (method, template) in PUBLIC else [{"HTTPBearer": []}, {"APIKeyHeader": []}])
    attempts = [
        {},
        {"Authorization": "Bearer nonsense"},
        {"Authorization": "Bearer felt_t_forged"},
        {"X-API-Key": "felt_ak_forged"},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer " + "x" * 5000},
    ]
    checked = 0
    for method, template in operations:
        if (method, template) in PUBLIC:
            continue
        path = (
            template.replace("{table_id}", "nlhe-1-a")
            .replace("{hand_id}", "nlhe-1-a-0123456789abcdef")
            .replace("{agent_id}", "a" * 32)
            .replace("{code}", "c" * 22)
            .replace("{participant_id}", "p" * 32)
            .replace("{tournament_id}", "t-0123456789")
            .replace("{match_id}", "m" * 20)
        )
        assert "{" not in path, template
        for headers in attempts:
            r = await http.request(method, path, headers=headers, json={})
            assert r.status_code == 401, (method, path, headers, r.status_code, r.text[:200])
            assert r.json()["code"] == "unauthorized"
            checked += 1
    assert checked == len(attempts) * (len(operations) - len(PUBLIC))
    for method, path in PUBLIC - {("POST", "/api/v2/accounts/login"), ("POST", "/api/v2/accounts/signup")}:
        answered = await http.request(method, path.replace("{match_id}", "m" * 20))
        assert answered.status_code == (404 if "{" in path else 200), (path, answered.text[:200])  # no such match


async def test_password_guessing_is_throttled_per_email(room, http) -> None:
    me = await owner(http)
    guesses = await asyncio.gather(
        *(http.post("/api/v2/accounts/login", json={"email": me["email"], "password": f"guess {i}"}) for i in range(12))
    )  # in parallel: the count goes up before the check
    statuses = sorted(r.status_code for r in guesses)
    assert statuses == [401] * 5 + [429] * 7, statuses
    throttled = next(r for r in guesses if r.status_code == 429)
    assert throttled.json()["code"] == "throttled" and throttled.json()["details"]["reason"] == "login_throttled"
    assert 1 <= int(throttled.headers["Retry-After"]) <= 900
    right = await http.post("/api/v2/accounts/login", json={"email": me["email"], "password": PASSWORD})
    assert right.status_code == 429  # even the right password waits: a guesser learns nothing
    assert (await http.get("/api/v2/accounts/me", headers=me["headers"])).status_code == 200  # a live token still works
    other = await owner(http)  # other accounts are not affected
    ok = await http.post("/api/v2/accounts/login", json={"email": other["email"].upper(), "password": PASSWORD})
    assert ok.status_code == 200
    SECRETS.add(ok.json()["token"])


async def test_a_success_resets_the_email_and_a_client_address_is_throttled_too(room) -> None:
    """The same rules on the room's Valkey with small limits (the room's own address limit is
    high: every test client here is 127.0.0.1)."""
    redis = make_redis(room.redis_url)
    throttle = LoginThrottle(redis, per_email=2, per_address=3, window=60)
    address, email = f"10.9.{id(redis) % 250}.1", unique_email()
    try:
        await throttle.attempt(email, address)
        await throttle.succeeded(email, address)  # a good login takes its attempt back
        for _ in range(2):
            await throttle.attempt(email, address)
        with pytest.raises(Exception) as refused:
            await throttle.attempt(email, address)
        assert getattr(refused.value, "code", None) == "throttled"
        await throttle.attempt(unique_email(), f"{address}0")  # another address, another email: fine
        with pytest.raises(Exception) as by_address:  # third failure from the address (fourth attempt, one taken back)
            await throttle.attempt(unique_email(), address)
        assert (
            by_address.value.details["reason"] == "login_throttled"
            and 1 <= by_address.value.details["retry_after"] <= 60
        )
    finally:
        await redis.aclose()


def test_login_says_it_is_throttled_in_the_openapi_document(room) -> None:
    doc = httpx.get(f"{room.url}/openapi.json").json()
    login = doc["paths"]["/api/v2/accounts/login"]["post"]
    assert "429" in login["responses"] and "throttled" in login["description"].lower()
