"""A multi-table tournament plays to the end through the real stack: wallet, limits, timer and
the tournament service with two table-service replicas on the session's NATS (permissions on).
27 players over three nine-seat tables, played by scripted players over the bus with short
levels: players move between tables (each move in the tournament's log and seen at both
tables), tables break down to a final table, the prizes paid sum to the pool, and the
tournament's chips are conserved in every hand and retire at zero."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import nats
import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, GetView, TableEvent
from felt_contracts.tournament import GetTournament, Level, PayoutTier, TournamentDefinition, TournamentView
from felt_contracts.wallet import ChipsMoved, ChipsRetire
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine
from felt_tournament.progress import Play
from felt_wallet.chips import issuer_key
from tests.scale.test_table_replicas import owners
from tests.support.services import ServiceRunner
from tests.tournament.conftest import FAST_RETRY, Room, accounts, available, create, pool, register
from tests.tournament.test_sit_and_go import table_cmd
from tests.wallet.conftest import check_invariants

ENV = {
    **FAST_RETRY,
    "felt_table_default_tables": "false",
    "felt_table_intermission_seconds": "0.6",
    "felt_table_lease_seconds": "3",
    "felt_timer_poll_seconds": "0.05",
    "felt_tournament_play_poll_seconds": "0.1",
}
ENTRANTS, SEATS, CHIPS, BUY_IN = 27, 9, 1000, 20
#: a seat's end: moved away (`left`), or busted and cashed out (`session_closed`)
GONE = ("left", "session_closed")
#: thirteen places paid: at fourteen players left over two tables the bubble is played hand-for-hand
PAID = [Decimal(p) for p in (24, 15, 11, 9, 7, 6, 5, 4, 4, 4, 4, 4, 3)]


@pytest.fixture(scope="module")
def room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    yield from tables_room(nats_url, redis_url, tmp_path_factory)


def tables_room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    """Wallet, limits, timer, the tournament service and two table-service replicas."""
    workdir = tmp_path_factory.mktemp("mtt")
    runner = ServiceRunner(nats_url, redis_url, workdir)
    db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    env = {**os.environ, "FELT_DATABASE_URL": db}  # migrated once, before two replicas start together
    subprocess.run([sys.executable, "-m", "felt_runtime.cli", "migrate"], env=env, check=True, timeout=120)
    try:
        procs = {n: runner.start(n, database_url=db, ready=False, **ENV) for n in ("wallet", "limits", "timer")}
        procs["tournament"] = runner.start("tournament", database_url=db, ready=False, **ENV)
        for rid in ("ra", "rb"):
            procs[rid] = runner.start("table", database_url=db, ready=False, felt_table_replica_id=rid, **ENV)
        for proc in procs.values():
            proc.wait_ready()
        yield Room(procs, db)
    finally:
        runner.stop_all()


async def several_tables(
    bus: Any,
    entrants: int,
    seats: int,
    chips: int,
    buy_in: int,
    levels: list[Level],
    paid: list[Decimal],
    *,
    min_entrants: int,
) -> TournamentDefinition:
    """A tournament for up to `entrants` at tables of `seats`, paying `paid` (percents) from `min_entrants`."""
    payouts = [PayoutTier(min_entrants=min_entrants, percents=paid)]
    fields = dict(buy_in=buy_in, starting_chips=chips, seats_per_table=seats, levels=levels, payouts=payouts)
    return await create(bus, min_entrants=min_entrants, max_entrants=entrants, **fields)


async def act_at(bus: Any, table_id: str, rng: random.Random) -> bool:
    """Play the turn at `table_id` if there is one: now and then all-in, else mostly check or call."""
    v = (await table_cmd(bus, table_id, GetView())).view
    h = v.hand if v else None
    if v is None or h is None or h.phase == "over" or h.actor_seat_id is None:
        return False
    actor = next((s.participant_id for s in v.seats if s.seat == h.actor_seat_id), None)
    mine = (await table_cmd(bus, table_id, GetView(viewer=actor))).view if actor else None
    la = mine.hand.legal_actions if mine and mine.hand else None
    if actor is None or mine is None or mine.hand is None or la is None:
        return False
    roll = rng.random()
    action = "allIn" if la.all_in is not None and roll < 0.04 else "check" if la.check else "call"
    if action == "call" and (la.call is None or roll > (0.8 if la.call <= 100 else 0.3)):
        action = "fold"  # a big bet (an all-in, mostly) is called now and then: few go out together
    act = Act(participant_id=actor, action=action, hand_id=mine.hand.hand_id, turn_id=mine.hand.turn_id)
    try:
        await table_cmd(bus, table_id, act)
    except BusError as exc:
        assert exc.code.value in ("stale_turn", "hand_closed", "not_your_turn", "not_seated"), exc
    return True


async def play_out(bus: Any, tid: str, seconds: float) -> TournamentView:
    """Act on every live table's turns until the tournament finishes."""
    rng = random.Random(3)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        t = await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=tid), TournamentView)
        if t.status == "finished":
            return t
        acted = False
        for table_id in t.tables:
            try:
                acted = await act_at(bus, table_id, rng) or acted
            except BusError as exc:
                assert exc.code in (ErrorCode.NOT_FOUND, ErrorCode.UNAVAILABLE, ErrorCode.TABLE_CLOSED), exc
        if not acted:
            await asyncio.sleep(0.05)
    raise AssertionError("the tournament did not finish in time")


async def watch(nats_url: str, engine: Any, tid: str, owners_seen: set[str]) -> int:
    """Every few tenths of a second while it plays: no chip created or lost (the ledger sums to
    zero, the tournament's issuer stays at minus every chip issued) and which replica owns each
    of its tables. How many times it looked."""
    nc = await nats.connect(nats_url)
    js, looks = nc.jetstream(), 0
    issuer = sa.text("select balance from wallet_ledger where key = :k")
    try:
        while True:
            async with engine.connect() as conn:
                assert (await conn.execute(sa.text("select sum(balance) from wallet_ledger"))).scalar() in (0, None)
                row = (await conn.execute(issuer, {"k": issuer_key(tid)})).scalar()
            assert row in (None, -ENTRANTS * CHIPS, 0), row
            owned = await owners(js)
            owners_seen.update(v for k, v in owned.items() if tid in k)
            looks += 1
            await asyncio.sleep(0.3)
    except asyncio.CancelledError:
        return looks
    finally:
        await nc.close()


async def _cancel(task: asyncio.Task[int]) -> int:
    task.cancel()
    return await task


async def all_events(engine: Any, table_id: str) -> list[TableEvent]:
    """A table's events as it stored them (a closed table answers no more commands)."""
    query = sa.text("select body from table_events where table_id = :t order by seq")
    async with engine.connect() as conn:
        rows = (await conn.execute(query, {"t": table_id})).scalars().all()
    stored = [json.loads(body) for body in rows]
    return [TableEvent.model_validate(e) for e in stored if e.pop("private_to", None) is None]


async def test_a_27_player_tournament_over_three_tables_on_two_replicas_moves_breaks_and_pays(
    room: Room, bus: Any, nats_url: str
) -> None:
    names = await accounts(bus, ENTRANTS)
    levels = [Level(small_blind=10 * 2**n, big_blind=20 * 2**n, duration_seconds=12) for n in range(9)]
    d = await several_tables(bus, ENTRANTS, SEATS, CHIPS, BUY_IN, levels, PAID, min_entrants=14)
    before = {n: await available(bus, n) for n in names}
    for n in names:
        await register(bus, d.tournament_id, n)
    engine = create_engine(room.database_url)
    seen_owners: set[str] = set()
    sampled = asyncio.create_task(watch(nats_url, engine, d.tournament_id, seen_owners))
    try:
        t = await play_out(bus, d.tournament_id, 900)
        checks = await asyncio.wait_for(_cancel(sampled), 30)
        assert checks > 10
        async with engine.connect() as conn:
            raw = (
                await conn.execute(
                    sa.text("select play from tournament_tournaments where tournament_id = :t"), {"t": d.tournament_id}
                )
            ).scalar_one()
        play = Play.model_validate_json(raw)
        events = {n: await all_events(engine, tp.table_id) for n, tp in play.tables.items()}
        await check_invariants(engine)
        async with engine.connect() as conn:  # the ledger sums to zero
            assert (await conn.execute(sa.text("select sum(balance) from wallet_ledger"))).scalar() == 0
    finally:
        await engine.dispose()
    assert sorted(play.tables) == [1, 2, 3]
    assert seen_owners == {"ra", "rb"}, seen_owners  # its tables on both replicas

    # the moves: logged, every one carried out, seen leaving its source seat and sitting at its destination
    balance = [m for m in play.moves if m.reason == "balance"]
    broke = [m for m in play.moves if m.reason == "break"]
    assert balance and broke and all(m.done for m in play.moves), [m.reason for m in play.moves]
    for m in play.moves:
        left = [e for e in events[m.from_table] if e.kind in GONE and e.participant_id == m.player]
        assert any(e.seat == m.from_seat and e.detail == "moved" for e in left), m
        sat = [e for e in events[m.to_table] if e.kind in ("seated", "waiting") and e.participant_id == m.player]
        assert any(e.seat == m.to_seat for e in sat), m

    # nobody at two tables at once: each player's sessions, in time, never overlap
    spans: dict[str, list[tuple[Any, Any]]] = {}
    for evs in events.values():
        opened: dict[str, Any] = {}
        for e in evs:
            if e.kind in ("seated", "waiting") and e.participant_id:
                opened[e.participant_id] = e.at
            elif e.kind in GONE and e.participant_id in opened:
                spans.setdefault(e.participant_id, []).append((opened.pop(e.participant_id), e.at))
        for pid, at in opened.items():
            spans.setdefault(pid, []).append((at, None))
    for pid, ss in spans.items():
        ss.sort(key=lambda s: s[0])
        for (_, end), (start, _) in zip(ss, ss[1:]):
            assert end is not None and end <= start, (pid, ss)

    # a moved player is dealt in at the first hand their new table starts after they sit down
    for m in play.moves:
        evs = events[m.to_table]
        away = min(e.seq for e in events[m.from_table] if e.kind == "left" and e.participant_id == m.player)
        sat = next(
            e.seq
            for e in evs
            if e.kind in ("seated", "waiting")
            and e.participant_id == m.player
            and e.seat == m.to_seat
            and (m.from_table != m.to_table or e.seq > away)
        )
        first = next((e for e in evs if e.kind == "hand_start" and e.seq > sat), None)
        out = next((e.seq for e in evs if e.kind in GONE and e.participant_id == m.player and e.seq > sat), None)
        if first is not None and (out is None or out > first.seq):
            assert first.stacks and str(m.to_seat) in first.stacks, m

    # chips conserved in every hand at every table
    hands = 0
    for evs in events.values():
        starts = {e.hand_id: sum(e.stacks.values()) for e in evs if e.kind == "hand_start" and e.stacks}
        for e in evs:
            if e.kind == "hand_end" and e.stacks:
                assert sum(e.stacks.values()) == starts[e.hand_id], e
                hands += 1
    assert hands > 10

    # tables broke down to one final table (the first): the others were emptied and closed
    assert [n for n, tp in play.tables.items() if not tp.broken] == [1]
    assert all(not tp.seats for n, tp in play.tables.items() if n != 1)
    assert any(m.reason == "final_table" for m in play.moves) or len(play.tables[1].seats) == SEATS

    # the end: places given, prizes = the pool, pool at zero, the chips retired
    assert t.status == "finished"
    prizes = {e.account_id: e.prize for e in t.entries}
    assert sum(prizes.values()) == ENTRANTS * BUY_IN
    assert sorted(e.place for e in t.entries if e.place is not None)[0] == 1 and all(e.place for e in t.entries)
    assert (await pool(bus, d.tournament_id)).balance == 0
    for n in names:
        assert await available(bus, n) == before[n] - BUY_IN + prizes[n]
    retired = await call(bus, subjects.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id=d.tournament_id), ChipsMoved)
    assert retired.issuer == 0 and sum(m.amount for m in retired.transfers) == ENTRANTS * CHIPS
