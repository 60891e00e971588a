"""A Sit & Go plays to the end through the real stack: wallet, limits, timer, table and the
tournament service as processes on the session's NATS (permissions on), the players acting on
the table's bus commands with a simple strategy and one of them absent throughout."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.table import Act, GetEvents, GetView, SitOut, TableRequest, TableResult, TableView
from felt_contracts.tournament import GetTournament, Level, PayoutTier, TournamentView
from felt_contracts.wallet import ChipsMoved, ChipsRetire
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine
from tests.support.services import ServiceRunner
from tests.tournament.conftest import FAST_RETRY, Room, accounts, available, create, pool, register
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
        yield Room(procs, db)
    finally:
        runner.stop_all()


async def table_cmd(bus: Any, table_id: str, command: Any) -> TableResult:
    req = TableRequest(table_id=table_id, command=command)
    return await call(bus, subjects.table_command(table_id), req, TableResult, timeout=10)


def choose(rng: random.Random, v: TableView, pid: str) -> Act | None:
    """Mostly call or check, sometimes all-in (the blinds rise fast: it ends in minutes)."""
    la = v.hand.legal_actions if v.hand else None
    if la is None:
        return None
    if la.all_in is not None and rng.random() < 0.1:
        return Act(participant_id=pid, action="allIn")
    if la.check:
        return Act(participant_id=pid, action="check")
    if la.call is not None:
        return Act(participant_id=pid, action="call")
    return Act(participant_id=pid, action="fold")


async def play(bus: Any, tid: str, players: list[str], absent: str, seconds: float) -> TournamentView:
    """Act for `players` whenever one of them is to act, until the tournament finished; `absent`
    sits out as soon as the table is there."""
    rng = random.Random(11)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    levels_seen = set()
    while loop.time() < deadline:
        t = await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=tid), TournamentView)
        if t.status == "finished":
            assert len(levels_seen) > 1, "the level never changed"
            return t
        levels_seen.add(t.level)
        if not t.tables:
            await asyncio.sleep(0.2)
            continue
        table = t.tables[0]
        if absent:
            await table_cmd(bus, table, SitOut(participant_id=absent))
            absent = ""
        v = (await table_cmd(bus, table, GetView())).view
        assert v is not None
        actor = next((s.participant_id for s in v.seats if v.hand and s.seat == v.hand.actor_seat_id), None)
        if actor not in players or v.hand is None or v.hand.phase == "over":
            await asyncio.sleep(0.05)
            continue
        mine = (await table_cmd(bus, table, GetView(viewer=actor))).view
        act = choose(rng, mine, actor) if mine is not None and mine.hand is not None else None
        if act is None or mine is None or mine.hand is None:
            continue
        try:
            await table_cmd(
                bus, table, act.model_copy(update={"hand_id": mine.hand.hand_id, "turn_id": mine.hand.turn_id})
            )
        except BusError as exc:
            assert exc.code.value in ("stale_turn", "hand_closed", "not_your_turn"), exc
    raise AssertionError("the Sit & Go did not finish in time")


async def test_a_six_player_sit_and_go_plays_to_the_end_and_pays_the_pool(room: Room, bus: Any) -> None:
    names = await accounts(bus, 6)
    d = await create(
        bus,
        starting_chips=1000,
        levels=[Level(small_blind=10 * 2**n, big_blind=20 * 2**n, duration_seconds=6) for n in range(8)],
        payouts=[PayoutTier(min_entrants=2, percents=[Decimal(65), Decimal(35)])],
    )
    before = {n: await available(bus, n) for n in names}
    for n in names:
        await register(bus, d.tournament_id, n)
    absent = names[-1]  # never acts: blinded out (posts, is folded), never removed
    t = await play(bus, d.tournament_id, names[:-1], absent, 420)
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
    engine = create_engine(room.database_url)
    try:
        await check_invariants(engine)
        async with engine.connect() as conn:  # the ledger sums to zero
            assert (await conn.execute(sa.text("select sum(balance) from wallet_ledger"))).scalar() == 0
    finally:
        await engine.dispose()
