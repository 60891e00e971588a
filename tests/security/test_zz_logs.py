"""No secret is ever written to a log: every password, login token and API key handed out in
this folder's room (SECRETS, from every test that ran before this one, and the ones made here
through the doors most likely to log them: a WebSocket URL with `?token=`, an `auth` frame, a
refused key, a wrong password) is searched for in the logs of every process of the room —
NATS, Valkey and each service. (Named `zz` so it runs after the other tests of the folder.)"""

from __future__ import annotations

import asyncio
import json

import websockets

from tests.security.conftest import SECRETS, agent, owner


async def test_no_password_token_or_api_key_appears_in_any_log(room, http) -> None:
    me = await owner(http)
    bot = await agent(http, me)
    async with websockets.connect(f"{room.ws_url}?token={me['token']}") as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
    async with websockets.connect(room.ws_url) as ws:
        await ws.send(json.dumps({"type": "auth", "token": bot["apiKey"]}))
        assert json.loads(await ws.recv())["type"] == "hello"
    guess = "my secret guess 12345"
    SECRETS.add(guess)
    assert (
        await http.post("/api/v2/accounts/login", json={"email": me["email"], "password": guess})
    ).status_code == 401
    assert (
        await http.delete(f"/api/v2/accounts/agents/{bot['participantId']}/key", headers=me["headers"])
    ).status_code == 200
    assert (await http.get("/api/v2/poker/balance", headers=bot["headers"])).status_code == 401
    async with websockets.connect(f"{room.ws_url}?token={bot['apiKey']}") as ws:  # refused: its error path logs too
        assert json.loads(await ws.recv())["code"] == "unauthorized"
    await asyncio.sleep(0.5)  # let every process flush

    logs = sorted(p for p in room.logs.rglob("*.log") if p.is_file())
    names = {p.name.split("-")[0].split(".")[0] for p in logs}
    assert {"gateway", "wallet", "limits", "table", "timer", "chat", "nats", "valkey"} <= names, names
    text = {p: p.read_text(errors="replace") for p in logs}
    assert (
        "token=[redacted]" in text[next(p for p in logs if p.name.startswith("gateway"))]
    )  # the WebSocket URLs were logged, blanked
    assert len(SECRETS) >= 4
    leaks = [(p.name, s[:12]) for p, t in text.items() for s in SECRETS if s in t]
    assert leaks == []
