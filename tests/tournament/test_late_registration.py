"""Late registration and re-entry (docs/tournaments.md, Late registration) through the real
stack: wallet, limits, timer, table, tournament and gateway as processes on the session's NATS.
A scheduled tournament starts with six players at one full table; a late entry over REST is
charged once and draws a seat at a table opened for it, which balancing fills; a busted player
enters again while late registration is open; once it closes both are refused and change
nothing; the tournament plays to the end and pays every entry's prize."""

from __future__ import annotations

import contextlib
import random
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from felt_client.errors import ApiError
from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.tournament import GetTournament, Level, PayoutTier, TournamentView
from felt_runtime.bus import call
from felt_runtime.db import create_engine
from tests.support.waiting import eventually, refused
from tests.tournament.conftest import Room, accounts, available, create, pool, register
from tests.tournament import test_multi_table as mtt
from tests.tournament.test_sit_and_go import agent, room  # noqa: F401 - the stack, with the gateway

SEATS, CHIPS, BUY_IN = 6, 1000, 20


async def view(bus: Any, tid: str) -> TournamentView:
    return await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=tid), TournamentView, timeout=10)


async def test_late_entries_and_re_entries_sit_down_while_late_registration_is_open_and_are_refused_after(
    room: Room, bus: Any
) -> None:
    late, closed = [await agent(room.procs["gateway"].url, n) for n in range(2)]
    late_id, closed_id = [(await c.balance()).account_id for c in (late, closed)]
    names = await accounts(bus, 6)
    d = await create(
        bus,
        tournament_id=f"late-{uuid.uuid4().hex[:8]}",
        buy_in=BUY_IN,
        starting_chips=CHIPS,
        seats_per_table=SEATS,
        min_entrants=2,
        max_entrants=30,
        starts_at=datetime.now(UTC) + timedelta(seconds=3),
        late_registration_level=1,
        re_entries=1,
        levels=[  # an ante from everyone, then from level 2 on a big-blind ante
            Level(small_blind=10, big_blind=20, ante=5, duration_seconds=25),
            *(
                Level(
                    small_blind=10 * 2**n,
                    big_blind=20 * 2**n,
                    ante=20 * 2**n,
                    ante_mode="big_blind",
                    duration_seconds=25,
                )
                for n in range(1, 9)
            ),
        ],
        payouts=[PayoutTier(min_entrants=2, percents=[Decimal(60), Decimal(40)])],
    )
    tid = d.tournament_id
    before = {n: await available(bus, n) for n in [*names, late_id, closed_id]}
    for n in names:
        await register(bus, tid, n)
    await eventually(lambda: view(bus, tid), lambda t: t.level == 1 and len(t.tables) == 1, timeout=30, what="start")

    # a late entry over REST: charged once over retries, seated with the starting stack at a table
    # opened for it (the first is full); balancing then fills that table
    listed = await closed.tournament(tid)
    assert listed["registrationOpen"] and listed["lateRegistrationLevel"] == 1 and listed["reEntries"] == 1
    first = await late.register(tid, idempotency_key="late-1")
    again = await late.register(tid, idempotency_key="late-1")
    assert first["status"] == again["status"] == "registered" and first["entrants"] == again["entrants"] == 7
    assert await available(bus, late_id) == before[late_id] - BUY_IN
    assert (await pool(bus, tid)).balance == 7 * BUY_IN
    await refused(register(bus, tid, late_id), ErrorCode.ALREADY_REGISTERED)  # playing: no second entry
    mine = await eventually(lambda: late.tournament(tid), lambda t: t["yourTable"] is not None, what="seated")
    assert mine["yourTable"] == f"{tid}-2"

    # play quietly (nobody goes all-in: nobody busts) until balancing has filled table 2; then
    # all-in often until somebody busts, who enters again (a second buy-in) while late
    # registration is open; then quietly until it closes
    rng = random.Random(5)
    re_entered: list[str] = []

    async def re_enter(t: TournamentView) -> None:
        out = [e.account_id for e in t.entries if e.busted and e.account_id in before]
        if out and t.level <= d.late_registration_level:
            r = await register(bus, tid, out[0])
            assert r.status == "registered" and r.entry_id.endswith(":2")
            re_entered.append(out[0])
            raise _Stop
        if t.level > d.late_registration_level:
            raise _Stop

    async def closed_yet(t: TournamentView) -> None:
        if t.level > d.late_registration_level:
            raise _Stop

    async def balanced(t: TournamentView) -> None:
        if sum(e.table_id == f"{tid}-2" for e in t.entries) >= 3:
            raise _Stop

    for each, all_in in ((balanced, 0.0), (re_enter, 0.3), (closed_yet, 0.0)):
        with contextlib.suppress(_Stop):
            await mtt.play_out(bus, tid, 300, each, all_in=all_in, rng=rng)
    assert re_entered, "nobody busted while late registration was open"
    assert await available(bus, re_entered[0]) == before[re_entered[0]] - 2 * BUY_IN

    # late registration is over: a new player and a busted one are refused, nothing moves
    t = await view(bus, tid)
    pool_then = (await pool(bus, tid)).balance
    assert pool_then == t.entrants * BUY_IN
    with pytest.raises(ApiError) as refusal:
        await closed.register(tid)
    assert (
        refusal.value.code == "registration_closed" and refusal.value.details.get("reason") == "late_registration_over"
    )
    assert not (await closed.tournament(tid))["registrationOpen"]
    busted_now = [e.account_id for e in t.entries if e.busted]
    if busted_now:
        await refused(register(bus, tid, busted_now[0]), ErrorCode.REGISTRATION_CLOSED)
    assert await available(bus, closed_id) == before[closed_id]
    assert (await pool(bus, tid)).balance == pool_then and (await view(bus, tid)).entrants == t.entrants
    del before[closed_id]

    end = await mtt.play_out(bus, tid, 600, all_in=0.3, rng=rng)
    engine = create_engine(room.database_url)
    try:
        play, events = await mtt.played(engine, tid)
    finally:
        await engine.dispose()
    arrivals = [m for m in play.moves if m.from_table == 0]
    assert [(m.player, m.reason, m.to_table) for m in arrivals[:1]] == [(late_id, "late_registration", 2)]
    assert [m.player for m in arrivals if m.reason == "re_entry"] == re_entered
    assert any(m.reason == "balance" and m.to_table == 2 for m in play.moves)
    for m in arrivals:  # each arrival sat at its drawn seat with the starting stack
        sat = [e for e in events[m.to_table] if e.kind in ("seated", "waiting") and e.participant_id == m.player]
        assert any(e.seat == m.to_seat and e.amount == CHIPS for e in sat), m
    # level 2 switched every table from an ante from everyone to a big-blind ante
    for evs in events.values():
        antes = [(e.seq, e.detail) for e in evs if e.kind == "post_ante"]
        switch = min((s for s, detail in antes if detail == "bb_ante"), default=None)
        assert all(detail == "" for s, detail in antes if switch is None or s < switch), antes
        assert all(detail == "bb_ante" for s, detail in antes if switch is not None and s >= switch), antes
    details = {e.detail for evs in events.values() for e in evs if e.kind == "post_ante"}
    assert details == {"", "bb_ante"}, details
    mtt.moves_seen_at_both_tables(play, events)
    mtt.one_table_at_a_time(events)
    assert mtt.chips_conserved_in_every_hand(events) > 5
    await mtt.paid_as_placed(bus, end, before, BUY_IN, CHIPS)


class _Stop(Exception):
    """Stop playing for a moment."""
