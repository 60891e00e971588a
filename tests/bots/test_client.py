"""felt_client against the real room: every call of the agent API, and the retry rules —
same idempotency key on retry, backoff on 429 and 503, a fresh view after a 409, and sitting
down again after the table service restarted."""

from __future__ import annotations

import asyncio

import pytest

from felt_client import ApiError, Conflict, FeltClient, Retry
from tests.bots.conftest import create_table, new_agent


async def seated_pair(room, bus, **cfg):
    table_id = await create_table(bus, **cfg)
    players = [await new_agent(room, f"a{i}") for i in range(2)]
    for _, agent in players:
        joined = await agent.join(table_id, buy_in=100)
        assert joined.status == "seated" and joined.seat is not None
    return table_id, [agent for _, agent in players]


async def start_hand(table_id: str, agents: list[FeltClient]) -> None:
    """Explicit start: the first says ready (refused: not enough ready), the second starts."""
    with pytest.raises(ApiError) as refused:
        await agents[0].start(table_id)
    assert refused.value.details.get("reason") == "not_enough_ready"
    assert (await agents[1].start(table_id)).status == "started"


async def actor_of(table_id: str, agents: list[FeltClient]) -> tuple[FeltClient, dict]:
    for agent in agents:
        table = await agent.table(table_id)
        hand = table.get("hand") or {}
        if hand.get("legalActions"):
            return agent, table
    raise AssertionError("nobody to act")


async def test_accounts_lobby_seats_actions_events_chat_money(room, bus) -> None:
    owner, agent = await new_agent(room)
    me = await owner.me()
    assert me["kind"] == "HUMAN" and any(p["kind"] == "AGENT" for p in me["participants"])
    assert "Rules version: `nlhe-1`" in await agent.rules("nlhe-1")
    table_id, agents = await seated_pair(room, bus)
    assert any(t["tableId"] == table_id for t in await agent.tables())
    before = await agents[0].balance()
    assert before.reserved == 100 and before.reserves == {table_id: 100}

    page = await agents[0].poll(table_id, after=0, wait=0)
    assert [e["kind"] for e in page.events].count("seated") == 2
    waiting = asyncio.create_task(agents[0].poll(table_id, after=page.last_seq, wait=10))
    await asyncio.sleep(0.3)
    await start_hand(table_id, agents)
    woke = await asyncio.wait_for(waiting, 10)
    assert woke.events and woke.events[0]["seq"] == page.last_seq + 1

    actor, table = await actor_of(table_id, agents)
    hand = table["hand"]
    result = await actor.act(
        table_id, {"type": "call"}, hand_id=hand["handId"], turn_id=hand["turnId"], idempotency_key="k1"
    )
    assert result.status == "ok" and not result.replayed
    again = await actor.act(
        table_id, {"type": "call"}, hand_id=hand["handId"], turn_id=hand["turnId"], idempotency_key="k1"
    )
    assert again.replayed, "a retry with the same key returns the first outcome and acts nothing"

    said = await agents[0].say(table_id, "good luck")
    assert said["message"]["text"] == "good luck"
    assert [m["text"] for m in await agents[1].chat(table_id)] == ["good luck"]
    assert await agents[0].hands(table_id) == []

    left = await agents[0].leave(table_id)
    assert left.status in ("left", "leaving")
    assert table_id not in agents[0].seats
    sessions = await agents[1].sessions()
    assert isinstance(sessions, list)


async def test_409_on_an_action_raises_conflict_with_the_table_as_it_is_now(room, bus) -> None:
    table_id, agents = await seated_pair(room, bus)
    await start_hand(table_id, agents)
    actor, table = await actor_of(table_id, agents)
    hand = table["hand"]
    await actor.act(table_id, {"type": "call"}, hand_id=hand["handId"], turn_id=hand["turnId"])
    with pytest.raises(Conflict) as stale:
        await actor.act(table_id, {"type": "fold"}, hand_id=hand["handId"], turn_id=hand["turnId"])
    assert stale.value.code == "stale_turn"
    assert stale.value.view["hand"]["turnId"] > hand["turnId"], "the view was read after the refusal"


async def test_429_waits_retry_after_then_succeeds(room, bus) -> None:
    table_id, agents = await seated_pair(room, bus)
    fast = FeltClient(room.url, api_key=agents[0].credential, retry=Retry(attempts=1))
    for text in ("one", "two"):
        await fast.say(table_id, text)
    with pytest.raises(ApiError) as throttled:
        await fast.say(table_id, "three")
    assert throttled.value.status == 429
    took = asyncio.get_running_loop().time()
    posted = await agents[0].say(table_id, "three")  # waits out the 2 s window instead of failing
    assert posted["message"]["text"] == "three"
    assert asyncio.get_running_loop().time() - took > 0.2
    await fast.aclose()


async def test_503_and_lost_connections_are_retried_until_the_room_answers(room, bus) -> None:
    _, first = await new_agent(room)
    agent = FeltClient(
        room.url, api_key=first.credential, retry=Retry(attempts=30, cap=3.0)
    )  # a loaded box restarts slowly
    wallet = room.procs["wallet"]
    wallet.kill9()
    restart = asyncio.create_task(asyncio.to_thread(lambda: (wallet.start(), wallet.wait_ready(timeout=90))))
    balance = await agent.balance()  # 503 while the wallet is down, then the answer
    await restart
    assert balance.available == 100000
    dead = FeltClient("http://127.0.0.1:9", api_key="x", retry=Retry(attempts=3, base=0.01))
    with pytest.raises(ApiError) as down:
        await dead.tables()
    assert down.value.code == "unavailable"
    await dead.aclose()


async def test_a_seat_cleared_by_a_table_restart_is_taken_again(room, bus) -> None:
    table_id, agents = await seated_pair(room, bus)
    await asyncio.to_thread(room.restart_table)
    await create_table_again(bus, table_id)
    table = await agents[0].table(table_id)
    assert table["yourSeatId"] is not None, "the client sat down again by itself"
    assert (await agents[0].balance()).reserves == {table_id: 100}


async def create_table_again(bus, table_id: str) -> None:
    """Tables made at run time are gone after a restart (the lobby file is the durable kind):
    the operator creates it again, as `felt up`'s lobby would."""
    from felt_contracts import subjects
    from felt_contracts.table import CreateTable, TableConfig, TableSummary
    from felt_runtime.bus import call

    config = TableConfig(
        table_id=table_id, rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=200, seats=6
    )
    for _ in range(50):
        try:
            await call(bus, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
            return
        except Exception:  # noqa: BLE001 - the service is still starting
            await asyncio.sleep(0.2)
