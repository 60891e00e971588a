"""A Sit & Go plays to the end through the real stack: wallet, limits, timer, table, tournament
and gateway as processes on the session's NATS (permissions on); six agents register and play
over REST (felt_client) with a simple strategy, one of them absent throughout, and the
tournament service is killed (-9) during a level and started again."""

from __future__ import annotations

import asyncio
import random
import tomllib
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_client import FeltClient
from felt_client.errors import ApiError
from felt_client import Retry
from felt_contracts.table import GetEvents, GetHand, ListHands, TableRequest, TableResult
from felt_contracts.tournament import (
    CancelTournament,
    GetTournament,
    Level,
    PayoutTier,
    TournamentDefinition,
    TournamentView,
)
from felt_contracts.wallet import ChipsMoved, ChipsRetire
from felt_runtime.bus import call
from felt_runtime.db import create_engine
from tests.support.services import ServiceRunner
from tests.tournament.conftest import FAST_RETRY, Room, available, create, pool
from tests.wallet.conftest import check_invariants

#: the table deals fast; an absent player's turn times out after a second, two in a row sit it out
PLAY_ENV = {
    "felt_table_default_tables": "false",
    "felt_table_intermission_seconds": "0.3",
    "felt_timer_poll_seconds": "0.05",
    "felt_tournament_play_poll_seconds": "0.3",
}


@pytest.fixture(scope="module")
def room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    workdir = tmp_path_factory.mktemp("sitgo")
    runner = ServiceRunner(nats_url, redis_url, workdir)
    db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    env = {**FAST_RETRY, **PLAY_ENV}
    try:
        names = ("wallet", "limits", "timer", "tournament")
        procs = {n: runner.start(n, database_url=db, ready=False, **env) for n in names}
        for proc in procs.values():
            proc.wait_ready()
        procs["table"] = runner.start("table", database_url=db, **env)
        procs["gateway"] = runner.start("gateway", database_url=db, **env)
        yield Room(procs, db)
    finally:
        runner.stop_all()


async def table_cmd(bus: Any, table_id: str, command: Any) -> TableResult:
    req = TableRequest(table_id=table_id, command=command)
    return await call(bus, subjects.table_command(table_id), req, TableResult, timeout=10)


async def agent(url: str, n: int) -> FeltClient:
    """An owner of its own (one participant per owner at a table) and its agent's API key."""
    owner = FeltClient(url)
    email = f"sng{n}-{uuid.uuid4().hex[:8]}@example.org"
    await owner.sign_up(email, "correct horse battery")
    await owner.log_in(email, "correct horse battery")
    key = await owner.create_agent(f"bot{n}")
    await owner.aclose()
    return FeltClient(url, api_key=key.api_key, retry=Retry(attempts=40, cap=2.0))  # across a restart


def choose(rng: random.Random, legal: dict[str, Any]) -> dict[str, Any]:
    """Mostly call or check, sometimes all-in (the blinds rise fast: it ends in minutes)."""
    if legal.get("allIn") is not None and rng.random() < 0.1:
        return {"type": "allIn"}
    if legal.get("check"):
        return {"type": "check"}
    if legal.get("call") is not None:
        return {"type": "call"}
    return {"type": "fold"}


#: agents that saw themselves busted (no table) before the end
busted_seen: set[str] = set()


async def play(c: FeltClient, tid: str, seed: int, seconds: float) -> dict[str, Any]:
    """An agent's loop over REST: find its table in the tournament view, act on its turns,
    until it has a place (busted or won). The view it ends with."""
    rng = random.Random(seed)
    me = (await c.balance()).account_id
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        t = await c.tournament(tid)
        table_id = t["yourTable"]
        if t["yourPlace"] is not None:
            return t
        if table_id is None and any(f["busted"] for f in t["finishers"] if f["participantId"] == me):
            busted_seen.add(me)  # out: no table, the place comes at the end
        if table_id is None:
            await asyncio.sleep(0.3)
            continue
        hand = (await c.table(table_id)).get("hand") or {}
        legal = hand.get("legalActions")
        if not legal:
            await asyncio.sleep(0.1)
            continue
        try:
            await c.act(table_id, choose(rng, legal), hand_id=hand["handId"], turn_id=hand["turnId"])
        except ApiError as exc:
            assert exc.status == 409, exc  # the turn moved on meanwhile
    raise AssertionError("the Sit & Go did not finish in time")


async def sit_out_when_seated(c: FeltClient, tid: str) -> dict[str, Any]:
    """The absent player: sits out as soon as it has a table, then never acts. The table."""
    while (table_id := (await c.tournament(tid))["yourTable"]) is None:
        await asyncio.sleep(0.2)
    await c.sit_out(table_id)
    return await c.table(table_id)


async def levels_in_histories(bus: Any, d: TournamentDefinition) -> set[int]:
    """The levels the table's hands were played at, each hand's JSON and PHH history naming the
    tournament and a level whose blinds and ante it was dealt with."""
    table_id, seen = f"{d.tournament_id}-1", set()
    for summary in (await table_cmd(bus, table_id, ListHands(limit=500))).hands:
        h = (await table_cmd(bus, table_id, GetHand(hand_id=summary.hand_id, format="phh"))).hand
        assert h is not None and h.tournament is not None and h.tournament.level is not None and h.phh is not None
        level = d.levels[h.tournament.level - 1]
        blinds = (h.tournament.small_blind, h.tournament.big_blind, h.tournament.ante)
        assert h.tournament.tournament_id == d.tournament_id and blinds == (
            level.small_blind,
            level.big_blind,
            level.ante,
        )
        phh = tomllib.loads(h.phh)
        assert (phh["event"], phh["level"], max(phh["blinds_or_straddles"])) == (
            d.tournament_id,
            h.tournament.level,
            level.big_blind,
        )
        seen.add(h.tournament.level)
    return seen


async def test_a_six_player_sit_and_go_plays_to_the_end_and_pays_the_pool(room: Room, bus: Any) -> None:
    agents = [await agent(room.procs["gateway"].url, n) for n in range(6)]
    names = [(await c.balance()).account_id for c in agents]
    d = await create(
        bus,
        starting_chips=1000,
        levels=[Level(small_blind=10 * 2**n, big_blind=20 * 2**n, duration_seconds=6) for n in range(8)],
        payouts=[PayoutTier(min_entrants=2, percents=[Decimal(65), Decimal(35)])],
    )
    before = {n: await available(bus, n) for n in names}
    listed = await agents[0].tournaments("registering")
    assert any(x["tournamentId"] == d.tournament_id and x["maxEntrants"] == 6 for x in listed)
    for c in agents:
        assert (await c.register(d.tournament_id))["status"] == "registered"
    absent = names[-1]  # never acts: blinded out (posts, is folded), never removed
    table = await sit_out_when_seated(agents[-1], d.tournament_id)
    seats = {s["name"]: s["kind"] for s in table["seats"]}
    assert seats == {f"bot{n}": "agent" for n in range(6)}, seats  # seated by the tournament as they are
    levels_seen: set[int] = set()
    after_restart: list[dict[str, Any]] = []

    async def watch() -> None:
        """Follow the level; at level 2, kill -9 the tournament service for longer than a level
        (its deadline fires meanwhile) and start it again: the clock catches up."""
        proc = room.procs["tournament"]
        while (view := await agents[-1].tournament(d.tournament_id))["status"] != "finished":
            levels_seen.add(view["level"])
            if view["level"] == 2 and not after_restart:
                proc.kill9()
                await asyncio.sleep(7)
                await asyncio.get_running_loop().run_in_executor(None, lambda: (proc.start(), proc.wait_ready(90)))
                for _ in range(40):  # the first look after the start catches the clock up
                    again = await agents[-1].tournament(d.tournament_id)
                    if again["level"] >= 3 or again["status"] == "finished":
                        break
                    await asyncio.sleep(0.25)
                after_restart.append(again)
            await asyncio.sleep(0.5)

    watching = asyncio.create_task(watch())
    ends = await asyncio.gather(*(play(c, d.tournament_id, n, 420) for n, c in enumerate(agents[:-1])))
    await asyncio.wait_for(watching, 60)
    assert len(levels_seen - {0}) > 1, "the level never changed"
    assert after_restart, "the service was not restarted during a level"
    assert busted_seen, "a busted agent's view still named a table"
    assert after_restart[0]["level"] >= 3 or after_restart[0]["status"] == "finished"  # level 2 ended meanwhile
    for end in ends:  # each agent's own view: its place, no table
        assert end["yourPlace"] is not None and end["yourTable"] is None
    t = await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=d.tournament_id), TournamentView)
    assert t.status == "finished"
    places = {e.account_id: e.place for e in t.entries}
    prizes = {e.account_id: e.prize for e in t.entries}
    assert None not in places.values() and list(places.values()).count(1) == 1
    place = 1  # places 1..6: entries tied (busted in one hand with equal stacks) share the ones they span
    while place <= 6:
        tied = list(places.values()).count(place)
        assert tied, f"nobody finished {place}: {sorted(places.values())}"
        place += tied
    assert sum(prizes.values()) == 300  # the pool: 6 x 50
    by_place = sorted(t.entries, key=lambda e: e.place or 0)
    assert all(a.prize >= b.prize for a, b in zip(by_place, by_place[1:]))
    if list(places.values()).count(2) == 1:
        assert sorted(prizes.values())[-2:] == [105, 195]  # 35% and 65%
    assert (await pool(bus, d.tournament_id)).balance == 0
    for n in names:
        assert await available(bus, n) == before[n] - 50 + prizes[n]
    retired = await call(bus, subjects.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id=d.tournament_id), ChipsMoved)
    assert retired.issuer == 0  # every tournament chip went back to the issuer
    events = (await table_cmd(bus, f"{d.tournament_id}-1", GetEvents(after_seq=0, limit=5000))).events
    assert any(e.kind == "blinds_changed" for e in events)  # the level reached the table
    seat_of_absent = next(e.seat for e in events if e.kind in ("seated", "waiting") and e.participant_id == absent)
    folded = [e for e in events if e.kind == "fold" and e.seat == seat_of_absent]
    assert folded and not any(e.kind == "left" and e.participant_id == absent for e in events)
    assert len(await levels_in_histories(bus, d)) > 1
    engine = create_engine(room.database_url)
    try:
        await check_invariants(engine)
        async with engine.connect() as conn:  # the ledger sums to zero
            assert (await conn.execute(sa.text("select sum(balance) from wallet_ledger"))).scalar() == 0
    finally:
        await engine.dispose()


async def test_a_sit_and_go_cancelled_while_playing_closes_its_table_and_retires_its_chips(
    room: Room, bus: Any
) -> None:
    agents = [await agent(room.procs["gateway"].url, n) for n in range(2)]
    names = [(await c.balance()).account_id for c in agents]
    d = await create(bus, max_entrants=2, starting_chips=1000)
    before = {n: await available(bus, n) for n in names}
    for c in agents:
        await c.register(d.tournament_id)
    while (await agents[0].tournament(d.tournament_id))["yourTable"] is None:
        await asyncio.sleep(0.2)
    await call(bus, subjects.TOURNAMENT_CANCEL, CancelTournament(tournament_id=d.tournament_id), TournamentView)
    table = f"{d.tournament_id}-1"
    engine = create_engine(room.database_url)
    try:  # the table closes after the hand in progress, then the service retires the chips
        for _ in range(120):
            async with engine.connect() as conn:
                done = (
                    await conn.execute(
                        sa.text(f"select result from wallet_commands where key = 'chips_retire:{d.tournament_id}'")
                    )
                ).scalar()
            if done:
                break
            await asyncio.sleep(0.5)
    finally:
        await engine.dispose()
    assert done and ChipsMoved.model_validate_json(done).issuer == 0
    events = (await table_cmd(bus, table, GetEvents(after_seq=0, limit=5000))).events
    assert any(e.kind == "table_closed" for e in events)
    for n in names:  # the buy-in came back
        assert await available(bus, n) == before[n]
    assert (await pool(bus, d.tournament_id)).status == "refunded"
