"""Identity and auth: sign-up, login, tokens, agents and their API keys, kind from credentials."""

from __future__ import annotations

import asyncio
import time

import httpx

import pytest

from tests.support.gateway import new_agent, sign_up, unique_email

PROTECTED = [
    ("GET", "/api/v2/poker/balance"),
    ("GET", "/api/v2/poker/leaderboard"),
    ("GET", "/api/v2/poker/sessions"),
    ("GET", "/api/v2/poker/limits"),
    ("POST", "/api/v2/poker/limits/caps"),
    ("POST", "/api/v2/poker/limits/freeze"),
    ("GET", "/api/v2/poker/tables/t1"),
    ("GET", "/api/v2/poker/tables/t1/events"),
    ("POST", "/api/v2/poker/tables/t1/join"),
    ("POST", "/api/v2/poker/tables/t1/start"),
    ("POST", "/api/v2/poker/tables/t1/leave"),
    ("POST", "/api/v2/poker/tables/t1/actions"),
    ("POST", "/api/v2/poker/tables/t1/preaction"),
    ("GET", "/api/v2/poker/tables/t1/chat"),
    ("POST", "/api/v2/poker/tables/t1/chat"),
    ("GET", "/api/v2/poker/tables/t1/hands"),
    ("GET", "/api/v2/poker/hands/h1"),
    ("GET", "/api/v2/poker/hands/h1.phh"),
    ("GET", "/api/v2/accounts/me"),
    ("POST", "/api/v2/accounts/agents"),
    ("POST", "/api/v2/accounts/logout"),
    ("POST", "/api/v2/accounts/agents/x/key"),
    ("DELETE", "/api/v2/accounts/agents/x/key"),
]


async def test_no_token_is_401_everywhere_but_the_public_endpoints(http) -> None:
    for method, path in PROTECTED:
        r = await http.request(method, path, json={})
        assert r.status_code == 401, (method, path, r.status_code, r.text)
        body = r.json()
        assert body["code"] == "unauthorized" and set(body) == {"code", "message", "details"}
    for bad in ("Bearer nonsense", "Bearer felt_t_forged", "Bearer felt_ak_forged", "Basic abc"):
        r = await http.get("/api/v2/poker/balance", headers={"Authorization": bad})
        assert r.status_code == 401, bad
    assert (await http.get("/api/v2/poker/rules")).status_code == 200


async def test_sign_up_log_in_and_kind_comes_from_the_credential(http) -> None:
    owner = await sign_up(http)
    me = (await http.get("/api/v2/accounts/me", headers=owner["headers"])).json()
    assert me["kind"] == "HUMAN" and me["participantId"] == owner["participantId"]
    assert [p["kind"] for p in me["participants"]] == ["HUMAN"]
    # the same email again is a conflict; a wrong password is 401
    dup = await http.post("/api/v2/accounts/signup", json={"email": owner["email"], "password": "another password"})
    assert dup.status_code == 409 and dup.json()["code"] == "conflict"
    wrong = await http.post("/api/v2/accounts/login", json={"email": owner["email"], "password": "wrong password!"})
    assert wrong.status_code == 401
    nobody = await http.post("/api/v2/accounts/login", json={"email": unique_email(), "password": "whatever123"})
    assert nobody.status_code == 401
    # an agent: its key acts as the AGENT, whatever a body says
    agent = await new_agent(http, owner, "robo")
    me_agent = (await http.get("/api/v2/accounts/me", headers=agent["headers"])).json()
    assert me_agent["kind"] == "AGENT" and me_agent["participantId"] == agent["participantId"]
    assert me_agent["ownerId"] == owner["ownerId"]
    assert [p["participantId"] for p in me_agent["participants"]] == [agent["participantId"]]
    also = (await http.get("/api/v2/accounts/me", headers={"X-API-Key": agent["apiKey"]})).json()
    assert also["kind"] == "AGENT"
    sneaky = await http.post(
        "/api/v2/poker/tables/t1/join", json={"buyIn": 100, "kind": "HUMAN"}, headers=agent["headers"]
    )
    assert sneaky.status_code == 422  # there is no `kind` in a join body
    # the owner's view lists both; the key itself is never listed, only its prefix
    listed = (await http.get("/api/v2/accounts/me", headers=owner["headers"])).json()["participants"]
    assert {p["kind"] for p in listed} == {"HUMAN", "AGENT"}
    assert all(agent["apiKey"] != p.get("apiKeyPrefix") for p in listed)


async def test_every_participant_gets_a_wallet_account(http) -> None:
    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    human_balance = (await http.get("/api/v2/poker/balance", headers=owner["headers"])).json()
    agent_balance = (await http.get("/api/v2/poker/balance", headers=agent["headers"])).json()
    assert human_balance["accountId"] == owner["participantId"] and human_balance["ownerId"] == owner["ownerId"]
    assert agent_balance["accountId"] == agent["participantId"] and agent_balance["ownerId"] == owner["ownerId"]
    assert human_balance["available"] > 0 and agent_balance["available"] > 0
    assert human_balance["reserved"] == 0 and human_balance["inPlay"] == 0
    sessions = (await http.get("/api/v2/poker/sessions", headers=agent["headers"])).json()
    assert sessions == {
        "accountId": agent["participantId"],
        "sessions": [],
        "granted": 200,
        "refilled": 0,
        "next": None,
    }
    board = (await http.get("/api/v2/poker/leaderboard", params={"limit": 100}, headers=agent["headers"])).json()
    assert all({"rank", "participantId", "name", "kind", "total"} <= set(e) for e in board["entries"])


async def test_api_keys_are_revocable_and_rotatable_only_by_the_owner(http) -> None:
    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    aid = agent["participantId"]
    # an agent key cannot manage agents
    assert (await http.post("/api/v2/accounts/agents", json={"name": "x"}, headers=agent["headers"])).status_code == 403
    assert (await http.post(f"/api/v2/accounts/agents/{aid}/key", headers=agent["headers"])).status_code == 403
    # another owner cannot touch this agent
    other = await sign_up(http)
    assert (await http.delete(f"/api/v2/accounts/agents/{aid}/key", headers=other["headers"])).status_code == 404
    rotated = await http.post(f"/api/v2/accounts/agents/{aid}/key", headers=owner["headers"])
    assert rotated.status_code == 200
    new_key = rotated.json()["apiKey"]
    assert new_key != agent["apiKey"]
    assert (await http.get("/api/v2/poker/balance", headers=agent["headers"])).status_code == 401
    new_headers = {"Authorization": f"Bearer {new_key}"}
    assert (await http.get("/api/v2/poker/balance", headers=new_headers)).status_code == 200
    revoked = await http.delete(f"/api/v2/accounts/agents/{aid}/key", headers=owner["headers"])
    assert revoked.status_code == 200 and revoked.json()["revoked"] == 1
    assert (await http.get("/api/v2/poker/balance", headers=new_headers)).status_code == 401


async def test_logout_ends_the_token(http) -> None:
    owner = await sign_up(http)
    assert (await http.post("/api/v2/accounts/logout", headers=owner["headers"])).status_code == 204
    assert (await http.get("/api/v2/accounts/me", headers=owner["headers"])).status_code == 401


@pytest.mark.parametrize(
    "body",
    [
        {"email": "not-an-email", "password": "long enough"},
        {"email": "a@b.co", "password": "short"},
        {"email": "a@b.co"},
        {"email": "a@b.co", "password": "long enough", "admin": True},
    ],
)
async def test_bad_sign_ups_are_422(http, body) -> None:
    r = await http.post("/api/v2/accounts/signup", json=body)
    assert r.status_code == 422 and r.json()["code"] == "validation"


async def test_unparsable_json_is_400(http) -> None:
    r = await http.post("/api/v2/accounts/signup", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "malformed"


async def test_a_revocation_elsewhere_takes_effect_within_the_auth_cache_ttl(stack, http) -> None:
    """Authentication results are cached briefly in the gateway process; a key revoked by another
    gateway process (here: straight in the database) stops working within the cache TTL, and a
    token deleted elsewhere likewise. Through this process it is immediate (test above)."""
    import time

    from datetime import UTC, datetime
    from sqlalchemy.ext.asyncio import create_async_engine

    from felt_gateway.store import api_keys, tokens
    from tests.gateway.conftest import AUTH_CACHE_SECONDS

    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    assert (await http.get("/api/v2/poker/balance", headers=agent["headers"])).status_code == 200  # now cached
    assert (await http.get("/api/v2/accounts/me", headers=owner["headers"])).status_code == 200
    engine = create_async_engine(stack.database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                api_keys.update()
                .where(api_keys.c.participant_id == agent["participantId"])
                .values(revoked_at=datetime.now(UTC))
            )
            await conn.execute(tokens.delete().where(tokens.c.owner_id == owner["ownerId"]))
    finally:
        await engine.dispose()
    revoked_at = time.monotonic()
    statuses: dict[str, float] = {}
    while len(statuses) < 2 and time.monotonic() - revoked_at < AUTH_CACHE_SECONDS + 3:
        if (
            "key" not in statuses
            and (await http.get("/api/v2/poker/balance", headers=agent["headers"])).status_code == 401
        ):
            statuses["key"] = time.monotonic() - revoked_at
        if (
            "token" not in statuses
            and (await http.get("/api/v2/accounts/me", headers=owner["headers"])).status_code == 401
        ):
            statuses["token"] = time.monotonic() - revoked_at
        await asyncio.sleep(0.1)
    assert set(statuses) == {"key", "token"}, statuses
    assert max(statuses.values()) <= AUTH_CACHE_SECONDS + 1.0, statuses


async def test_a_revocation_through_one_gateway_reaches_another_gateways_cache_at_once(stack, http) -> None:
    """Two gateway processes on one room, each caching authentications for a minute: a key
    revoked and a token logged out through the first stop working at the second at once (the
    first tells every gateway on the bus), not a minute later."""
    import time

    from tests.gateway.conftest import READY_SECONDS

    other = stack.runner.start(
        "gateway", database_url=stack.database_url, ready=False, FELT_GATEWAY_AUTH_CACHE_SECONDS="60"
    )
    try:
        other.wait_ready(READY_SECONDS)
        async with httpx.AsyncClient(base_url=other.url, timeout=30) as there:
            owner = await sign_up(http)
            agent = await new_agent(http, owner)
            assert (await there.get("/api/v2/poker/balance", headers=agent["headers"])).status_code == 200
            assert (await there.get("/api/v2/accounts/me", headers=owner["headers"])).status_code == 200
            aid = agent["participantId"]
            assert (
                await http.delete(f"/api/v2/accounts/agents/{aid}/key", headers=owner["headers"])
            ).status_code == 200
            assert (await http.post("/api/v2/accounts/logout", headers=owner["headers"])).status_code in (200, 204)
            done = time.monotonic()
            statuses = {}
            while len(statuses) < 2 and time.monotonic() - done < 10:
                if (await there.get("/api/v2/poker/balance", headers=agent["headers"])).status_code == 401:
                    statuses.setdefault("key", time.monotonic() - done)
                if (await there.get("/api/v2/accounts/me", headers=owner["headers"])).status_code == 401:
                    statuses.setdefault("token", time.monotonic() - done)
                await asyncio.sleep(0.05)
            assert set(statuses) == {"key", "token"} and max(statuses.values()) < 2.0, statuses
    finally:
        other.stop()


async def test_authentications_made_together_expire_spread_over_the_second_half_of_the_ttl(tmp_path) -> None:
    """Credentials first used together (a room opening, a reconnect storm) are read again spread
    over the second half of the cache's TTL, not all in one second."""
    from faststream.nats import NatsBroker

    from felt_gateway.identity import Identity, Principal
    from felt_runtime.db import create_engine

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/auth.db")
    identity = Identity(engine, NatsBroker(), token_ttl=3600, timeout=5, cache_seconds=60)
    reads: list[str] = []

    async def read(secret: str, key: str) -> tuple[Principal, float]:  # the database's answer
        reads.append(secret)
        return Principal("o", f"p-{secret}", "AGENT", "api_key"), float("inf")

    identity._authenticate = read  # type: ignore[method-assign]  # the database read, replaced for this test
    try:
        start = time.monotonic()  # the cache's clock
        for n in range(400):
            await identity.authenticate(f"secret-{n}")
        await identity.authenticate("secret-0")
        assert len(reads) == 400  # cached
        expiries = sorted(exp - start for exp, _ in identity._cache.values())
        assert 30 <= expiries[0] and expiries[-1] <= 61
        assert expiries[-1] - expiries[0] > 20  # spread, not one instant
        in_any_second = max(sum(1 for e in expiries if s <= e < s + 1) for s in range(30, 61))
        assert in_any_second < 40  # ~13 a second when spread evenly; 400 when not
    finally:
        identity.close()
        await engine.dispose()
