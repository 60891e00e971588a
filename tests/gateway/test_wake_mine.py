"""`GET …/events?wake=mine`: a long-poll that returns only once an event is the caller's own
(its private copy: hole cards, its turn), with every event since `after` — so an agent that acts
only on its turn is not woken by each move of the others, and nothing is skipped."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.gateway.test_fanout import truth
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture
from tests.support.gateway import choose, create_table, new_agent, sign_up

pytestmark = pytest.mark.timeout(120)


async def test_wake_mine_sleeps_through_others_events_and_returns_them_all_with_its_turn(stack, http, bus) -> None:
    table_id = await create_table(bus)
    path = f"/api/v2/poker/tables/{table_id}"
    x, y, z = [await new_agent(http, await sign_up(http)) for _ in range(3)]
    for a in (x, y):
        r = await http.post(f"{path}/join", json={"buyIn": 100}, headers=a["headers"])
        assert r.status_code == 200, r.text
    for a in (x, y):
        await http.post(f"{path}/start", headers=a["headers"])
    view = (await http.get(f"{path}", headers=x["headers"])).json()["table"]
    for _ in range(100):  # the deal is under way: wait until a turn is open
        if (view.get("hand") or {}).get("legalActions") is not None or view.get("hand", {}).get("actorSeatId"):
            break
        await asyncio.sleep(0.05)
        view = (await http.get(f"{path}", headers=x["headers"])).json()["table"]
    actor, other = (x, y) if view["hand"]["actorSeatId"] == view["yourSeatId"] else (y, x)
    cursor = (await http.get(f"{path}/events", params={"after": 0}, headers=other["headers"])).json()["lastSeq"]

    # only someone else's event (a third player sits down): the poll sleeps until `wait` runs out
    # and then returns that event rather than dropping it
    poll = asyncio.create_task(
        http.get(f"{path}/events", params={"after": cursor, "wait": 1.5, "wake": "mine"}, headers=other["headers"])
    )
    await asyncio.sleep(0.2)
    started = time.monotonic()
    joined = await http.post(f"{path}/join", json={"buyIn": 100}, headers=z["headers"])
    assert joined.status_code == 200, joined.text
    await asyncio.sleep(0.5)
    assert not poll.done(), "wake=mine returned on another player's event"
    page = (await poll).json()
    assert time.monotonic() - started >= 1.0
    assert [e["seq"] for e in page["events"]] == list(range(cursor + 1, page["lastSeq"] + 1))
    assert any(e["seq"] == joined.json()["seq"] for e in page["events"])
    assert not any(e["private"] for e in page["events"])
    cursor = page["lastSeq"]

    # the actor moves: the other's poll returns with the move and its own turn (its private copy)
    poll = asyncio.create_task(
        http.get(f"{path}/events", params={"after": cursor, "wait": 10, "wake": "mine"}, headers=other["headers"])
    )
    await asyncio.sleep(0.2)
    legal = (await http.get(path, headers=actor["headers"])).json()["table"]["hand"]
    act = choose(legal["legalActions"]) | {"handId": legal["handId"], "turnId": legal["turnId"]}
    acted = await http.post(f"{path}/actions", json=act, headers=actor["headers"])
    assert acted.status_code == 200, acted.text
    page = (await asyncio.wait_for(poll, 10)).json()
    mine = [e for e in page["events"] if e["private"]]
    assert mine and mine[-1]["kind"] == "turn" and mine[-1]["participantId"] == other["participantId"]
    # every event since `after`, as the table itself redacts them for this viewer
    assert page["events"] == (await truth(bus, table_id, cursor, other["participantId"]))[: len(page["events"])]
    assert page["lastSeq"] == page["events"][-1]["seq"] >= acted.json()["seq"]


async def test_wake_mine_returns_when_a_hand_ends_so_a_player_can_ready_up(stack, http, bus) -> None:
    """At an explicit-start table nobody is dealt in until the players ready up again, so the end
    of a hand must wake a `wake=mine` poll though it is nobody's private event."""
    table_id = await create_table(bus)
    path = f"/api/v2/poker/tables/{table_id}"
    x, y = [await new_agent(http, await sign_up(http)) for _ in range(2)]
    for a in (x, y):
        assert (await http.post(f"{path}/join", json={"buyIn": 100}, headers=a["headers"])).status_code == 200
    for a in (x, y):
        await http.post(f"{path}/start", headers=a["headers"])
    for _ in range(100):
        hand = (await http.get(path, headers=x["headers"])).json()["table"].get("hand") or {}
        if hand.get("actorSeatId") is not None:
            break
        await asyncio.sleep(0.05)
    view = (await http.get(path, headers=x["headers"])).json()["table"]
    actor, other = (x, y) if view["hand"]["actorSeatId"] == view["yourSeatId"] else (y, x)
    cursor = (await http.get(f"{path}/events", headers=other["headers"])).json()["lastSeq"]
    poll = asyncio.create_task(
        http.get(f"{path}/events", params={"after": cursor, "wait": 10, "wake": "mine"}, headers=other["headers"])
    )
    await asyncio.sleep(0.2)
    hand = (await http.get(path, headers=actor["headers"])).json()["table"]["hand"]
    fold = {"type": "fold", "handId": hand["handId"], "turnId": hand["turnId"]}
    started = time.monotonic()
    assert (await http.post(f"{path}/actions", json=fold, headers=actor["headers"])).status_code == 200
    page = (await asyncio.wait_for(poll, 10)).json()
    assert time.monotonic() - started < 5, "the hand's end did not wake the poll"
    assert any(e["kind"] == "hand_end" for e in page["events"])
    assert not any(e["private"] for e in page["events"])  # woken by the end, not by a card of its own


async def test_wake_any_is_the_default_and_returns_at_the_first_event(stack, http, bus) -> None:
    table_id = await create_table(bus)
    path = f"/api/v2/poker/tables/{table_id}"
    x, y = [await new_agent(http, await sign_up(http)) for _ in range(2)]
    assert (await http.post(f"{path}/join", json={"buyIn": 100}, headers=x["headers"])).status_code == 200
    cursor = (await http.get(f"{path}/events", headers=x["headers"])).json()["lastSeq"]
    poll = asyncio.create_task(http.get(f"{path}/events", params={"after": cursor, "wait": 10}, headers=x["headers"]))
    await asyncio.sleep(0.2)
    started = time.monotonic()
    assert (await http.post(f"{path}/join", json={"buyIn": 100}, headers=y["headers"])).status_code == 200
    page = (await asyncio.wait_for(poll, 10)).json()
    assert page["events"] and time.monotonic() - started < 5


async def test_an_unknown_wake_is_refused_as_validation(stack, http) -> None:
    agent = await new_agent(http, await sign_up(http))
    r = await http.get("/api/v2/poker/tables/t1/events", params={"wake": "often"}, headers=agent["headers"])
    assert r.status_code == 422 and r.json()["code"] == "validation", r.text
