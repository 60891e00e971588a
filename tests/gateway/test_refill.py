"""Refills over REST (docs/wallet.md "Refills"): the state says whether a claim applies; a claim
with an id moves chips once; a second claim the same UTC day is refused with the time of the
next one; a rich account is refused; an owner claims for its agent; a freeze refuses it; the
leaderboard and the session history say how much came from the house. The stack's wallet
counts every new account as low (tests/gateway/conftest.py `REFILLS`)."""

from __future__ import annotations

from tests.support.gateway import new_agent, sign_up


async def test_a_refill_over_rest_moves_chips_once_a_day_and_says_so_everywhere(http) -> None:
    owner = await sign_up(http)
    h = owner["headers"]
    state = (await http.get("/api/v2/poker/refill", headers=h)).json()
    assert state["status"] == "eligible" and state["total"] == 200 and state["amount"] == 100
    first = await http.post("/api/v2/poker/refill", json={"refillId": "r1"}, headers=h)
    assert first.status_code == 200, first.text
    assert first.json()["amount"] == 100 and first.json()["available"] == 300
    again = await http.post("/api/v2/poker/refill", json={"refillId": "r1"}, headers=h)
    assert again.json() == first.json()
    assert (await http.get("/api/v2/poker/balance", headers=h)).json()["available"] == 300
    soon = await http.post("/api/v2/poker/refill", json={"refillId": "r2"}, headers=h)
    assert soon.status_code == 409 and soon.json()["code"] == "refill_too_soon"
    assert soon.json()["details"]["next_at"].startswith(first.json()["nextAt"][:10])
    assert (await http.get("/api/v2/poker/refill", headers=h)).json()["status"] == "claimed_today"

    # an owner claims for its agent; the agent, now rich, is refused (after its day's claim)
    agent = await new_agent(http, owner, "refiller")
    aid = agent["participantId"]
    for_agent = await http.post("/api/v2/poker/refill", json={"refillId": "a1", "participantId": aid}, headers=h)
    assert for_agent.status_code == 200 and for_agent.json()["accountId"] == aid
    other = await sign_up(http)
    stranger = await http.post(
        "/api/v2/poker/refill", json={"refillId": "x", "participantId": aid}, headers=other["headers"]
    )
    assert stranger.status_code == 404 and stranger.json()["details"]["field"] == "participantId"

    # a freeze refuses a refill and moves nothing
    frozen = await sign_up(http)
    await http.post("/api/v2/poker/limits/freeze", json={"frozen": True, "reason": "break"}, headers=frozen["headers"])
    refused = await http.post("/api/v2/poker/refill", json={"refillId": "f1"}, headers=frozen["headers"])
    assert refused.status_code == 403 and refused.json()["code"] == "frozen"
    assert (await http.get("/api/v2/poker/balance", headers=frozen["headers"])).json()["available"] == 200

    sessions = (await http.get("/api/v2/poker/sessions", headers=h)).json()
    assert (sessions["granted"], sessions["refilled"]) == (300, 100)
    board = (await http.get("/api/v2/poker/leaderboard", params={"limit": 100}, headers=h)).json()["entries"]
    mine = {e["participantId"]: e for e in board}
    assert mine[owner["participantId"]]["granted"] == 300 and mine[aid]["granted"] == 300
    bad = await http.post("/api/v2/poker/refill", json={"refillId": ""}, headers=h)
    assert bad.status_code == 422
