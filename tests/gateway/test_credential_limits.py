"""Credential policies through the real gateway: the API key a request comes with names its own
limits scope (the Clawbet rules: account, participant, credential and session policies all apply)."""

from __future__ import annotations

from tests.support.gateway import new_agent, sign_up
from tests.gateway.test_play import bus  # noqa: F401 - the fixture is used by name
from tests.support.gateway import create_table


async def test_an_agents_key_carries_its_own_policy(stack, http, bus) -> None:
    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    state = (await http.get("/api/v2/poker/limits", headers=agent["headers"])).json()
    assert state["credential"]["scope"] == "credential" and state["credential"]["scopeId"].startswith("key-")
    lowered = await http.post(
        "/api/v2/poker/limits/caps",
        json={"scope": "credential", "limit": "daily_buy_in", "cap": 60},
        headers=agent["headers"],
    )
    assert lowered.status_code == 200 and lowered.json()["applied"] is True
    table_id = await create_table(bus)
    over = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 61}, headers=agent["headers"])
    assert over.status_code != 200 and over.json()["code"] == "limit_exceeded"
    assert over.json()["details"]["scope"] == "credential"
    at_cap = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 60}, headers=agent["headers"])
    assert at_cap.status_code == 200, at_cap.text
    mine = (await http.get("/api/v2/poker/limits", headers=agent["headers"])).json()["credential"]
    assert mine["limits"]["daily_buy_in"]["cap"] == 60
