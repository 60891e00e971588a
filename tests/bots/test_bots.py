"""The bots service in a real room: one bot of each level plays 50 hands through the gateway
with no refused action, failed call or turn timeout; after a kill -9 of the table service the
bots sit down again by themselves and play on. And a bot's decision gets exactly what the API
returned, nothing more."""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
from pathlib import Path
import random
import time

import httpx

from felt_bots import offline
from felt_bots.levels import LEVELS
from felt_bots.player import Bot
from felt_client import FeltClient
from felt_contracts import subjects
from felt_contracts.bots import AddBots, BotInfo, BotsQuery, BotsStatus
from felt_engine.testing import default_stakes, new_hand
from felt_runtime.bus import call
from tests.bots.conftest import create_table, new_agent
from tests.support.waiting import eventually

HANDS = 50


async def status(bus, table_id: str) -> list[BotInfo]:
    return (await call(bus, subjects.BOTS_STATUS, BotsQuery(table_id=table_id), BotsStatus)).bots


async def wait_for(bus, table_id: str, done, timeout: float) -> list[BotInfo]:
    return await eventually(lambda: status(bus, table_id), done, timeout=timeout, every=0.5, what="bots")


def clean(bots: list[BotInfo]) -> None:
    for b in bots:
        assert (b.refused, b.errors, b.timeouts) == (0, 0, 0), b


async def test_one_bot_of_each_level_plays_50_hands_without_a_fault(room, bus, bots_service) -> None:
    for level in LEVELS:
        added = await call(
            bus, subjects.BOTS_ADD, AddBots(table_id="e2e-play", level=level, count=1), BotsStatus, timeout=30
        )
        assert [b.level for b in added.bots] == [level]
    bots = await wait_for(bus, "e2e-play", lambda bs: len(bs) == 3 and min(b.hands for b in bs) >= HANDS, timeout=300)
    clean(bots)
    assert sum(b.actions for b in bots) >= HANDS


async def test_bots_sit_down_again_after_a_kill_9_of_the_table_service(room, bus, bots_service) -> None:
    for level in ("easy", "hard"):
        await call(bus, subjects.BOTS_ADD, AddBots(table_id="e2e-crash", level=level, count=1), BotsStatus, timeout=30)
    before = await wait_for(bus, "e2e-crash", lambda bs: len(bs) == 2 and min(b.hands for b in bs) >= 3, timeout=120)
    await asyncio.to_thread(room.restart_table)
    hands = {b.participant_id: b.hands for b in await status(bus, "e2e-crash")}
    after = await wait_for(
        bus, "e2e-crash", lambda bs: all(b.seated and b.hands >= hands[b.participant_id] + 3 for b in bs), timeout=180
    )
    assert {b.participant_id for b in after} == {b.participant_id for b in before}
    assert all(b.refused == 0 for b in after)


async def test_felt_bots_command_adds_bots_and_refuses_an_unknown_table(room, bus, bots_service) -> None:
    env = {**os.environ, "FELT_NATS_URL": room.nats_url}
    felt = str(Path(sys.executable).parent / "felt")
    added = await asyncio.to_thread(
        subprocess.run,
        [felt, "bots", "--table", "e2e-cli", "--level", "hard", "--count", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    assert added.stdout.count("(hard)") == 2 and "e2e-cli" in added.stdout
    assert [b.level for b in await status(bus, "e2e-cli")] == ["hard", "hard"]
    unknown = await asyncio.to_thread(
        subprocess.run,
        [felt, "bots", "--table", "nope", "--count", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert unknown.returncode == 1 and "not_found" in unknown.stderr
    listed = await asyncio.to_thread(
        subprocess.run, [felt, "bots"], env=env, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0 and listed.stdout.count("e2e-cli") == 2


async def test_a_bot_that_is_sat_out_leaves_and_comes_back(room, bus) -> None:
    """It never holds a seat it does not play: sat out (here by its own key), it leaves, and
    sits down again since it can afford to."""
    table_id = await create_table(bus)
    _, mine = await new_agent(room, "sitter")
    _, rival = await new_agent(room, "rival")
    me = (await mine.me())["participantId"]
    bots = [
        Bot(
            mine,
            me,
            "sitter",
            "normal",
            table_id,
            LEVELS["normal"],
            random.Random(5),
            pause_seconds=0.2,
            broke_recheck_seconds=1,
        ),
        Bot(rival, "rival", "rival", "easy", table_id, LEVELS["easy"], random.Random(6), pause_seconds=0.2),
    ]
    tasks = [asyncio.create_task(b.run()) for b in bots]
    try:
        deadline = time.monotonic() + 60
        while bots[0].tally.hands < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await mine.sit_out(table_id)
        kinds: list[tuple[str, str | None]] = []
        while time.monotonic() < deadline:
            kinds = [(e["kind"], e.get("participantId")) for e in (await rival.poll(table_id, 0)).events]
            if ("left", me) in kinds and kinds[::-1].index(("seated", me)) < kinds[::-1].index(("left", me)):
                break
            await asyncio.sleep(0.3)
        assert ("sit_out", me) in kinds and ("left", me) in kinds, kinds
        assert kinds[::-1].index(("seated", me)) < kinds[::-1].index(("left", me)), "seated again after leaving"
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await mine.aclose()
        await rival.aclose()


async def test_a_bot_whose_seat_the_table_already_closed_stands_up_without_an_error(room, bus) -> None:
    """The table cashes a broke seat out itself; when that lands between the view a bot read and
    its leave, the leave's `not_seated` is the outcome the bot wanted, not a failed call."""
    table_id = await create_table(bus)
    _, agent = await new_agent(room, "stander")
    await agent.join(table_id, buy_in=100)
    bot = Bot(agent, "stander", "stander", "easy", table_id, LEVELS["easy"], random.Random(7))
    bot.seat = (await agent.table(table_id))["yourSeatId"]
    await agent.leave(table_id)  # the seat goes first, as the table's own cash-out does
    try:
        await bot.stand_up()
        assert bot.seat is None and bot.tally.errors == 0
        assert (await agent.table(table_id)).get("yourSeatId") is None
    finally:
        await agent.aclose()


async def test_a_bot_reads_the_view_on_its_turn_not_after_every_event(room, bus, caplog) -> None:
    """The view is read when the events call for it (its turn, a hand's end, a seat change), so
    a bot asks for it about once per action and hand, not after every batch of events (at three
    seats that was twice as many reads)."""
    table_id = await create_table(bus)
    views: dict[str, int] = {}

    def counting(name: str):
        async def count(request: httpx.Request) -> None:
            if request.method == "GET" and request.url.path == f"/api/v2/poker/tables/{table_id}":
                views[name] = views.get(name, 0) + 1

        return count

    clients = []
    names = ("reader", "rival", "third")
    for name in names:
        _, agent = await new_agent(room, name)
        key = agent.credential
        await agent.aclose()
        clients.append(FeltClient(room.url, api_key=key, event_hooks={"request": [counting(name)]}))
    bots = [
        Bot(c, name, name, "normal", table_id, LEVELS["normal"], random.Random(i), pause_seconds=0)
        for i, (name, c) in enumerate(zip(names, clients))
    ]
    tasks = [asyncio.create_task(b.run()) for b in bots]
    try:
        deadline = time.monotonic() + 60
        while min(b.tally.hands for b in bots) < 10 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in clients:
            await c.aclose()
    for b in bots:
        print(f"{b.name}: {views[b.name]} views, {b.tally.actions} actions, {b.tally.hands} hands")
        failed = [(r.code, r.error) for r in caplog.records if r.getMessage() == "bot call failed"]
        assert b.tally.hands >= 10 and b.tally.errors == 0, failed
        # about one per own turn and one per hand's end (reading after every batch was ~2 of each)
        assert views[b.name] <= 1.5 * (b.tally.actions + b.tally.hands)


async def test_a_decision_receives_only_the_api_response(room, bus) -> None:
    """The decision function's one input is the JSON body of the bot's own `GET
    /tables/{id}`, equal to what the gateway sent; the offline view has the same shape."""
    assert list(inspect.signature(LEVELS["hard"]).parameters) == ["view", "rng"]
    table_id = await create_table(bus)
    bodies: list[dict] = []

    async def record(response: httpx.Response) -> None:
        if response.request.method == "GET" and response.request.url.path == f"/api/v2/poker/tables/{table_id}":
            await response.aread()
            bodies.append(response.json())

    inputs: list[dict] = []

    def recording(view, rng):
        inputs.append(view)
        return LEVELS["hard"](view, rng)

    _, watched = await new_agent(room, "watched")
    key = watched.credential
    await watched.aclose()
    client = FeltClient(room.url, api_key=key, event_hooks={"response": [record]})
    _, other = await new_agent(room, "other")
    players = [
        Bot(client, "watched", "watched", "hard", table_id, recording, random.Random(1), pause_seconds=0),
        Bot(other, "other", "other", "easy", table_id, LEVELS["easy"], random.Random(2), pause_seconds=0),
    ]
    tasks = [asyncio.create_task(p.run()) for p in players]
    try:
        deadline = time.monotonic() + 60
        while len(inputs) < 12 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert len(inputs) >= 12
    for view in inputs:
        assert any(view == body for body in bodies), "a decision input that is not an API response"
        assert view["table"]["hand"]["legalActions"], "decisions happen on the agent's turn"
        others = [s for s in view["table"]["hand"]["seats"] if s["seat"] != view["table"]["yourSeatId"]]
        assert all(s["cards"] is None or s["shown"] for s in others), "no other player's cards"

    real = inputs[0]["table"]
    state = new_hand("nlhe-1", {1: 200, 2: 200}, seed=3)
    config = offline.config_of(table_id, "nlhe-1", default_stakes("nlhe-1", small_blind=1, big_blind=2))
    fake = offline.view(state, state.actor_seat, config)["table"]
    assert fake.keys() == real.keys()
    assert fake["hand"].keys() == real["hand"].keys()
    assert fake["config"].keys() == real["config"].keys()
    assert fake["seats"][0].keys() == real["seats"][0].keys()
    assert fake["hand"]["seats"][0].keys() == real["hand"]["seats"][0].keys()
    assert fake["hand"]["legalActions"].keys() == real["hand"]["legalActions"].keys()
    await client.aclose()
    await other.aclose()
