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
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from decimal import Decimal
from typing import Any

import nats
import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import SEATS_EMPTIED, Act, GetView, TableEvent
from felt_contracts.tournament import GetTournament, Level, PayoutTier, Register, TournamentDefinition, TournamentView
from felt_contracts.wallet import ChipsMoved, ChipsRetire
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine
from felt_table.server.ownership import BUCKET
from felt_tournament.progress import Play
from felt_wallet.chips import issuer_key
from felt_wallet.store import transfers
from tests.support.services import ServiceRunner
from tests.tournament.conftest import FAST_RETRY, Room, accounts, available, create, pool
from tests.tournament.test_crash import until_answered
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


async def act_at(bus: Any, table_id: str, rng: random.Random, all_in: float = 0.04) -> bool:
    """Play the turn at `table_id` if there is one: now and then (`all_in`) all-in, else mostly
    check or call."""
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
    action = "allIn" if la.all_in is not None and roll < all_in else "check" if la.check else "call"
    if action == "call" and (la.call is None or roll > (0.8 if la.call <= 100 else 0.3)):
        action = "fold"  # a big bet (an all-in, mostly) is called now and then: few go out together
    act = Act(participant_id=actor, action=action, hand_id=mine.hand.hand_id, turn_id=mine.hand.turn_id)
    try:
        await table_cmd(bus, table_id, act)
    except BusError as exc:
        assert exc.code.value in ("stale_turn", "hand_closed", "not_your_turn", "not_seated"), exc
    return True


async def play_out(
    bus: Any,
    tid: str,
    seconds: float,
    each: Callable[[TournamentView], Awaitable[None]] | None = None,
    *,
    all_in: float = 0.04,
    rng: random.Random | None = None,
) -> TournamentView:
    """Act on every live table's turns until the tournament finishes (`each`: also run with
    every look at the tournament while it plays; `all_in`: how often a player goes all-in)."""
    rng = rng or random.Random(3)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        try:
            t = await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=tid), TournamentView, timeout=10)
        except BusError as exc:  # the tournament service starting again
            assert exc.code is ErrorCode.UNAVAILABLE, exc
            continue
        if t.status == "finished":
            return t
        if each is not None:
            await each(t)
        acted = False
        for table_id in t.tables:
            try:
                acted = await act_at(bus, table_id, rng, all_in) or acted
            except BusError as exc:
                assert exc.code in (ErrorCode.NOT_FOUND, ErrorCode.UNAVAILABLE, ErrorCode.TABLE_CLOSED), exc
        if not acted:
            await asyncio.sleep(0.05)
    raise AssertionError("the tournament did not finish in time")


#: a tournament's play as the service keeps it
PLAY = sa.text("select play from tournament_tournaments where tournament_id = :t")


async def owner_of(js: Any, table_id: str) -> str | None:
    """The table replica holding the table's lease (one key read: a watch of every key costs
    the server a consumer each time)."""
    kv = await js.key_value(BUCKET)
    try:
        return (await kv.get(table_id)).value.decode()
    except nats.js.errors.KeyNotFoundError:
        return None


async def watch(nats_url: str, engine: Any, tid: str, owners_seen: set[str], issued: int) -> int:
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
            assert row in (None, -issued, 0), row
            async with engine.connect() as conn:
                raw = (await conn.execute(PLAY, {"t": tid})).scalar()
            play = Play.model_validate_json(raw) if raw else None
            tables = [tp.table_id for tp in play.tables.values()] or [play.table_id] if play else []
            for table in tables:
                if (owner := await owner_of(js, table)) is not None:
                    owners_seen.add(owner)
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


async def played(engine: Any, tid: str) -> tuple[Play, dict[int, list[TableEvent]]]:
    """The tournament's play as it kept it and every table's events; the ledger checked (it sums
    to zero, no account below what it may hold)."""
    async with engine.connect() as conn:
        play = Play.model_validate_json((await conn.execute(PLAY, {"t": tid})).scalar_one())
    events = {n: await all_events(engine, tp.table_id) for n, tp in play.tables.items()}
    await check_invariants(engine)
    async with engine.connect() as conn:
        assert (await conn.execute(sa.text("select sum(balance) from wallet_ledger"))).scalar() == 0
        paid = sa.select(transfers.c.credit, sa.func.count()).where(
            transfers.c.kind == "prize", transfers.c.debit.contains(tid)
        )
        assert all(n == 1 for _, n in (await conn.execute(paid.group_by(transfers.c.credit))).all())  # paid once
    return play, events


async def played_out(
    room: Room,
    bus: Any,
    nats_url: str,
    tid: str,
    issued: int,
    each: Callable[[TournamentView], Awaitable[None]] | None = None,
    owners_seen: set[str] | None = None,
) -> tuple[TournamentView, Play, dict[int, list[TableEvent]]]:
    """Played to the end (`each` as play_out's), watched throughout (`watch`); then `played`."""
    engine = create_engine(room.database_url)
    sampled = asyncio.create_task(watch(nats_url, engine, tid, set() if owners_seen is None else owners_seen, issued))
    try:
        t = await play_out(bus, tid, 900, each)
        assert await asyncio.wait_for(_cancel(sampled), 30) > 10
        play, events = await played(engine, tid)
    finally:
        sampled.cancel()
        await engine.dispose()
    return t, play, events


async def field_over_tables(
    bus: Any, entrants: int, seats: int, chips: int, buy_in: int, paid: list[Decimal], min_entrants: int
) -> tuple[TournamentDefinition, dict[str, int]]:
    """`entrants` players registered for a tournament at `seats`-seat tables whose blinds double
    every 12 s (it starts at the last registration); what each player had before."""
    names = await accounts(bus, entrants)
    levels = [Level(small_blind=10 * 2**n, big_blind=20 * 2**n, duration_seconds=12) for n in range(9)]
    d = await several_tables(bus, entrants, seats, chips, buy_in, levels, paid, min_entrants=min_entrants)
    before = {n: await available(bus, n) for n in names}
    for n in names:  # sent again while unanswered (a busy machine)
        await until_answered(bus, Register(tournament_id=d.tournament_id, account_id=n, owner_id=n))
    return d, before


async def paid_as_placed(bus: Any, t: TournamentView, before: dict[str, int], buy_in: int, chips: int) -> None:
    """The end: every entry placed, the prizes sum to the pool, which is at zero, each player has
    what they had less a buy-in per entry plus their prizes, and the chips retired to an issuer at
    zero."""
    assert t.status == "finished"
    field = [e for e in t.entries if e.status == "registered"]
    entries, prizes = Counter(e.account_id for e in field), Counter[str]()
    for e in field:
        prizes[e.account_id] += e.prize
    assert sum(prizes.values()) == len(field) * buy_in and set(entries) == set(before)
    assert sorted(e.place for e in field if e.place is not None)[0] == 1 and all(e.place for e in field)
    assert (await pool(bus, t.definition.tournament_id)).balance == 0
    for n, had in before.items():
        assert await available(bus, n) == had - entries[n] * buy_in + prizes[n]
    retire = ChipsRetire(ledger_id=t.definition.tournament_id)
    retired = await call(bus, subjects.WALLET_CHIPS_RETIRE, retire, ChipsMoved)
    assert retired.issuer == 0 and sum(m.amount for m in retired.transfers) == len(field) * chips


def moves_seen_at_both_tables(play: Play, events: dict[int, list[TableEvent]]) -> None:
    """Each move in the log is seen leaving its source seat (an arrival's is table 0: none) and
    sitting at its destination seat."""
    for m in play.moves:
        left = [e for e in events.get(m.from_table, []) if e.kind in GONE and e.participant_id == m.player]
        assert not m.from_table or any(e.seat == m.from_seat and e.detail == "moved" for e in left), m
        sat = [e for e in events[m.to_table] if e.kind in ("seated", "waiting") and e.participant_id == m.player]
        assert any(e.seat == m.to_seat for e in sat), m


def one_table_at_a_time(events: dict[int, list[TableEvent]]) -> None:
    """Nobody at two tables at once: each player's sessions, in time, never overlap."""
    spans: dict[str, list[tuple[Any, Any]]] = {}
    for evs in events.values():
        opened: dict[str, Any] = {}
        for e in evs:
            if e.kind in ("seated", "waiting") and e.participant_id:
                opened[e.participant_id] = e.at
            elif e.kind in GONE and e.participant_id in opened:
                spans.setdefault(e.participant_id, []).append((opened.pop(e.participant_id), e.at))
            elif e.kind in SEATS_EMPTIED:  # restarted (every seat cashed out) or closed
                for pid in list(opened):
                    spans.setdefault(pid, []).append((opened.pop(pid), e.at))
        for pid, at in opened.items():
            spans.setdefault(pid, []).append((at, None))
    for pid, ss in spans.items():
        ss.sort(key=lambda s: s[0])
        for (_, end), (start, _) in zip(ss, ss[1:]):
            assert end is not None and end <= start, (pid, ss)


def chips_conserved_in_every_hand(events: dict[int, list[TableEvent]]) -> int:
    """Every hand at every table ends with the chips it started with; how many hands ended."""
    hands = 0
    for evs in events.values():
        starts = {e.hand_id: sum(e.stacks.values()) for e in evs if e.kind == "hand_start" and e.stacks}
        for e in evs:
            if e.kind == "hand_end" and e.stacks:
                assert sum(e.stacks.values()) == starts[e.hand_id], e
                hands += 1
    return hands


async def test_a_27_player_tournament_over_three_tables_on_two_replicas_moves_breaks_and_pays(
    room: Room, bus: Any, nats_url: str
) -> None:
    seen_owners: set[str] = set()
    d, before = await field_over_tables(bus, ENTRANTS, SEATS, CHIPS, BUY_IN, PAID, min_entrants=14)
    t, play, events = await played_out(room, bus, nats_url, d.tournament_id, ENTRANTS * CHIPS, owners_seen=seen_owners)
    assert sorted(play.tables) == [1, 2, 3]
    assert seen_owners == {"ra", "rb"}, seen_owners  # its tables on both replicas

    # the moves: logged, every one carried out, seen leaving its source seat and sitting at its destination
    balance = [m for m in play.moves if m.reason == "balance"]
    broke = [m for m in play.moves if m.reason == "break"]
    assert balance and broke and all(m.done for m in play.moves), [m.reason for m in play.moves]
    moves_seen_at_both_tables(play, events)

    one_table_at_a_time(events)

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

    assert chips_conserved_in_every_hand(events) > 10

    # tables broke down to one final table (the first): the others were emptied and closed
    assert [n for n, tp in play.tables.items() if not tp.broken] == [1]
    assert all(not tp.seats for n, tp in play.tables.items() if n != 1)
    assert any(m.reason == "final_table" for m in play.moves) or len(play.tables[1].seats) == SEATS

    await paid_as_placed(bus, t, before, BUY_IN, CHIPS)
