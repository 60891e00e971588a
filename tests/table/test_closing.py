"""Rooms limited by hands or time (the Texas Hold'em rules): the hand in progress finishes, every seat is cashed
out exactly once, `table_closed` is published, joins are refused with `table_closed`."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from felt_contracts import subjects
from felt_contracts.table import Act, GetView, Join, ListTables, TableList
from felt_runtime.bus import BusError, call
from felt_wallet.settings import WalletSettings
from tests.table.conftest import balance, cmd, create_table, player
from tests.table.test_player_options import ante_players, deal, events, seat, wait_for, wait_hand


async def finish_hand(bus, t) -> None:
    for _ in range(100):
        v = (await cmd(bus, t, GetView())).view
        if v.hand.phase == "over":
            return
        who = next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)
        legal = (await cmd(bus, t, GetView(viewer=who))).view.hand.legal_actions
        action = "hit" if v.rules_version == "ante-nl-1" else "check" if legal.check else "call"
        await cmd(bus, t, Act(participant_id=who, action=action))
    raise AssertionError("hand did not end")


async def assert_closed_and_cashed_out(bus, t, pids, since) -> None:
    closed, _ = await wait_for(bus, t, since, "table_closed", timeout=5)
    evs = await events(bus, t, since)
    outs = [e for e in evs if e.kind == "left" and e.detail == "table_closed"]
    assert sorted(e.participant_id for e in outs) == sorted(pids)  # every seat, exactly once
    assert all(e.seq < closed.seq for e in outs)
    for p in pids:
        b = await balance(bus, p)
        assert (b.reserved, b.in_play) == (0, 0)
    grant = WalletSettings().grant
    assert sum([(await balance(bus, p)).available for p in pids]) == grant * len(pids)  # nothing lost or doubled
    v = (await cmd(bus, t, GetView())).view
    assert v.closed and v.seats == ()
    lobby = await call(bus, subjects.TABLE_LIST, ListTables(), TableList)
    assert next(s for s in lobby.tables if s.config.table_id == t).closed
    newcomer, owner = await player(bus)
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Join(participant_id=newcomer, owner_id=owner, kind="agent", buy_in=50))
    assert e.value.code == "table_closed"
    await asyncio.sleep(0.3)
    assert [x.kind for x in await events(bus, t, closed.seq)] == []  # nothing after: no cash-out again


async def test_a_hand_limited_table_closes_after_the_hand_in_progress(stack, bus):
    t = await create_table(bus, max_hands=2)
    pids = await seat(bus, t, [50, 60, 70])
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, pids)
    await finish_hand(bus, t)
    v = await deal(bus, t, pids)
    assert v.hands_played == 1 and v.config.max_hands == 2
    assert (await cmd(bus, t, GetView())).view.hand.phase != "over"
    await finish_hand(bus, t)  # the second hand plays to its end
    await assert_closed_and_cashed_out(bus, t, pids, seq)
    assert (await cmd(bus, t, GetView())).view.hands_played == 2


async def test_a_time_limited_table_closes_after_the_hand_in_progress(stack, bus):
    t = await create_table(bus, rules_version="ante-nl-1", closes_at=datetime.now(UTC) + timedelta(seconds=2))
    seq = (await cmd(bus, t, GetView())).view.seq
    pids = [p for p, _ in await ante_players(bus, t, 3)]
    v = await wait_hand(bus, t)
    hand_id = v.hand.hand_id
    await asyncio.sleep(2.2)  # past closes_at with the hand still running
    assert (await cmd(bus, t, GetView())).view.hand.hand_id == hand_id
    await finish_hand(bus, t)
    closed, _ = await wait_for(bus, t, seq, "table_closed", timeout=5)
    assert closed.detail == "closes_at"
    starts = [e for e in await events(bus, t, seq) if e.kind == "hand_start"]
    assert [e.hand_id for e in starts] == [hand_id]  # no hand after closes_at
    outs = [e for e in await events(bus, t, seq) if e.kind == "left" and e.detail == "table_closed"]
    assert sorted(e.participant_id for e in outs) == sorted(pids)
    assert sum([(await balance(bus, p)).available for p in pids]) == WalletSettings().grant * 3


async def test_an_idle_time_limited_table_closes_when_its_time_comes(stack, bus):
    t = await create_table(bus, closes_at=datetime.now(UTC) + timedelta(seconds=1))
    pids = await seat(bus, t, [50, 60])
    seq = (await cmd(bus, t, GetView())).view.seq
    await assert_closed_and_cashed_out(bus, t, pids, seq)
