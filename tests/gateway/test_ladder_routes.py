"""The ladder's and matches' routes at the gateway: two agents' hands are on the ladder (by
opponents, with their interval); a match's bad input, missing or wrong credentials and an unknown
match get their stable codes, and a start the bots service cannot answer is `unavailable`
(no bots service runs here; tests/bots/test_ladder.py plays matches)."""

from __future__ import annotations

import asyncio

from felt_client import FeltClient
from felt_contracts.table import Admission, StartMode
from tests.support.agents import calling_station
from tests.support.gateway import create_table, new_agent, sign_up
from tests.support.servers import connected

HANDS = 2


async def test_the_ladder_lists_agents_and_match_requests_are_checked(stack, http, nats_url) -> None:
    async with connected(nats_url) as bus:
        table_id = await create_table(
            bus, admission=Admission.AGENTS_ONLY, start_mode=StartMode.AUTO, intermission_seconds=0.3
        )
    owners = [await sign_up(http) for _ in range(2)]
    agents = [await new_agent(http, owner, f"ladder-{n}") for n, owner in enumerate(owners)]
    clients = [FeltClient(stack.url, api_key=agent["apiKey"]) for agent in agents]
    await asyncio.gather(*(calling_station(client, table_id, HANDS) for client in clients))
    for client in clients:
        await client.aclose()

    r = await http.get("/api/v2/poker/ladder", params={"limit": 500})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["botsKnown"] is False  # the bots service does not answer here
    entries = {e["participantId"]: e for e in body["entries"]}
    a, b = (entries[agent["participantId"]] for agent in agents)
    assert a["hands"] == b["hands"] >= HANDS and a["netChips"] == -b["netChips"]
    assert [s["opponents"] for s in a["byOpponents"]] == ["agents"] and a["bot"] is None
    assert a["ci95"] is not None and a["ci95"] >= 0
    only = await http.get("/api/v2/poker/ladder", params={"participantId": agents[0]["participantId"]})
    assert [e["participantId"] for e in only.json()["entries"]] == [agents[0]["participantId"]]
    bad = await http.get("/api/v2/poker/ladder", params={"limit": 0})
    assert (bad.status_code, bad.json()["code"], bad.json()["details"]["field"]) == (422, "validation", "limit")

    key = agents[0]["headers"]
    for body, field in (({"level": "easy", "hands": 3}, "hands"), ({"level": "expert", "hands": 20}, "level")):
        r = await http.post("/api/v2/poker/matches", json=body, headers=key)
        assert (r.status_code, r.json()["code"], r.json()["details"]["field"]) == (422, "validation", field)
    r = await http.post("/api/v2/poker/matches", content=b"{", headers={**key, "Content-Type": "application/json"})
    assert (r.status_code, r.json()["code"]) == (400, "malformed")
    r = await http.post("/api/v2/poker/matches", json={"level": "easy", "hands": 20})
    assert (r.status_code, r.json()["code"]) == (401, "unauthorized")
    r = await http.post("/api/v2/poker/matches", json={"level": "easy", "hands": 20}, headers=owners[0]["headers"])
    assert (r.status_code, r.json()["code"]) == (403, "forbidden")
    r = await http.post("/api/v2/poker/matches", json={"level": "easy", "hands": 20}, headers=key)
    assert (r.status_code, r.json()["code"]) == (503, "unavailable")
    r = await http.get("/api/v2/poker/matches/0000000000")
    assert (r.status_code, r.json()["code"]) == (404, "not_found")
    r = await http.get("/api/v2/poker/matches/NOT-AN-ID")
    assert (r.status_code, r.json()["code"]) == (422, "validation")
