"""Player options at the service level (real NATS, Redis, wallet, limits, timer): the per-table
time bank, pre-actions through the queue, auto-rebuy between hands."""

from __future__ import annotations

import asyncio
import time

import pytest

from felt_contracts import subjects
from felt_contracts.table import (
    Act,
    CreateTable,
    GetEvents,
    GetView,
    Join,
    Leave,
    ListTables,
    Ready,
    SetAutoRebuy,
    SetPreAction,
    Start,
    TableConfig,
    TableList,
    TableSummary,
)
from felt_contracts.limits import FreezeState, LimitsFreeze, Scope
from felt_contracts.timer import GetTimeBanks, RefillTimeBanks, TimeBankPolicy, TimeBanks
from felt_runtime.bus import BusError, call

from tests.table.conftest import balance, cmd, create_table, player, uid
from tests.support.waiting import eventually

BANK = dict(initial_seconds=0.6, max_seconds=1.0, refill_seconds=0.1)


async def seat(bus, t, buy_ins, **join):
    out = []
    for b in buy_ins:
        pid, owner = await player(bus)
        await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=b, **join))
        out.append(pid)
    return out


async def deal(bus, t, pids):
    for p in pids:
        await cmd(bus, t, Ready(participant_id=p))
    assert (await cmd(bus, t, Start(participant_id=pids[0]))).status == "started"
    return (await cmd(bus, t, GetView())).view


def actor_pid(view):
    return next(s.participant_id for s in view.seats if s.seat == view.hand.actor_seat_id)


async def events(bus, t, after, viewer=None):
    return (await cmd(bus, t, GetEvents(after_seq=after, viewer=viewer))).events


async def wait_for(bus, t, after, kind, detail=None, timeout=5.0):
    """Poll the table's events until one of `kind` (and `detail`) appears; (event, seconds waited)."""
    t0 = time.monotonic()

    def match(evs):
        return next((e for e in evs if e.kind == kind and (detail is None or e.detail == detail)), None)

    found = await eventually(lambda: events(bus, t, after), match, timeout=timeout, every=0.02, what=f"a {kind} event")
    return match(found), time.monotonic() - t0


# --- time bank ----------------------------------------------------------------------------


async def test_time_bank_extends_the_turn_then_the_timeout_acts(stack, bus):
    t = await create_table(bus, rules_version="plhe-1", turn_seconds=0.3, time_bank=BANK)
    a, b = await seat(bus, t, [100, 100])
    v = await deal(bus, t, [a, b])
    who = actor_pid(v)
    # each dealt player's bank was refilled once for this hand: 0.6 initial + 0.1, capped at 1.0
    assert v.hand.time_bank_seconds == pytest.approx(0.7) and not v.hand.in_time_bank
    turn = next(e for e in await events(bus, t, 0) if e.kind == "turn")
    assert turn.turn.participant_id == who and turn.turn.time_bank_seconds == pytest.approx(0.7)
    banked, waited = await wait_for(bus, t, turn.seq, "time_bank")
    assert waited >= 0.15  # not before the 0.3 s turn clock (polling started a little after the turn)
    assert banked.participant_id == who and banked.turn.turn_id == turn.turn.turn_id
    assert banked.turn.time_bank_seconds == pytest.approx(0.7)
    extension = (banked.turn.deadline - turn.turn.deadline).total_seconds()
    assert extension >= 0.65, extension  # the deadline moved by the whole bank (0.7 s)
    mid = (await cmd(bus, t, GetView())).view
    if mid.hand.phase != "over":  # (the view during the bank, unless the bank already ran out)
        assert mid.hand.in_time_bank and mid.hand.deadline == banked.turn.deadline
        assert 0 <= mid.hand.time_bank_seconds <= 0.7
    fold, _ = await wait_for(bus, t, banked.seq, "fold", "timeout")
    assert fold.participant_id == who and fold.seq > banked.seq
    timed = (fold.at - turn.at).total_seconds()
    assert timed >= 0.3 + 0.7 - 0.05, timed  # the turn clock plus the whole bank
    assert (await cmd(bus, t, GetView())).view.hand.phase == "over"
    # the bank is spent; the next hand refills it once (message id `<hand>:bank`: a repeat is a no-op)
    banks = await call(bus, subjects.TIMER_GET_BANKS, GetTimeBanks(table_id=t, player_ids=[who]), TimeBanks)
    assert banks.seconds[who] == pytest.approx(0.0, abs=0.02)
    v2 = await deal(bus, t, [a, b])
    again = await call(
        bus,
        subjects.TIMER_REFILL_BANKS,
        RefillTimeBanks(
            message_id=f"{v2.hand.hand_id}:bank", table_id=t, player_ids=[a, b], policy=TimeBankPolicy(**BANK)
        ),
        TimeBanks,
    )
    assert again.seconds[who] == pytest.approx(0.1, abs=0.02)
    banks = await call(bus, subjects.TIMER_GET_BANKS, GetTimeBanks(table_id=t, player_ids=[who]), TimeBanks)
    assert banks.seconds[who] == pytest.approx(0.1, abs=0.02)


async def test_table_without_time_bank_times_out_at_the_plain_deadline(stack, bus):
    t = await create_table(bus, rules_version="plhe-1", turn_seconds=0.3)
    a, b = await seat(bus, t, [100, 100])
    v = await deal(bus, t, [a, b])
    assert v.hand.time_bank_seconds is None
    turn = next(e for e in await events(bus, t, 0) if e.kind == "turn")
    assert turn.turn.time_bank_seconds is None
    fold, _ = await wait_for(bus, t, turn.seq, "fold", "timeout")
    timed = (fold.at - turn.at).total_seconds()
    assert 0.25 <= timed < 0.9, timed  # the plain 0.3 s clock (with a bank it would be >= 1.0 s)
    assert not [e for e in await events(bus, t, 0) if e.kind == "time_bank"]


async def test_time_bank_refused_for_profiles_that_fix_the_turn_clock(stack, bus):
    for rules, extra in (
        ("nlhe-1", dict(small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=100)),
        ("ante-nl-1", dict(ante=10, start_mode="auto")),
    ):
        tid = uid("t")
        config = TableConfig(table_id=tid, rules_version=rules, time_bank=TimeBankPolicy(), **extra)
        with pytest.raises(BusError) as e:
            await call(bus, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
        assert e.value.code == "malformed" and "time_bank" in e.value.message and rules in e.value.message
        lobby = await call(bus, subjects.TABLE_LIST, ListTables(), TableList)
        assert tid not in [x.config.table_id for x in lobby.tables]


# --- pre-actions --------------------------------------------------------------------------


async def test_preaction_applied_on_turn_through_the_queue_with_chips_escrowed(stack, bus):
    t = await create_table(bus)
    a, b, c = await seat(bus, t, [100, 100, 100])  # seats 1 (button), 2 (SB), 3 (BB)
    v = await deal(bus, t, [a, b, c])
    assert actor_pid(v) == a and v.hand.big_blind_seat == 3
    await cmd(bus, t, SetPreAction(participant_id=c, preaction="call_any"))
    mine = (await cmd(bus, t, GetView(viewer=c))).view
    assert mine.hand.preaction == "call_any" and mine.hand.actor_seat_id == 1
    private = [e for e in await events(bus, t, v.seq, viewer=c) if e.kind == "preaction"]
    assert private and private[-1].private and private[-1].detail == "call_any"
    assert not [e for e in await events(bus, t, v.seq) if e.kind == "preaction"]  # never public
    await cmd(bus, t, Act(participant_id=a, action="raiseTo", amount=10))
    seq = (await cmd(bus, t, GetView())).view.seq
    await cmd(bus, t, Act(participant_id=b, action="fold"))
    # C's turn came and went inside B's command: the call was applied (its chips stay in the reserve
    # until the hand settles: the reserve is the hold)
    assert (await balance(bus, c)).reserved == 100
    evs = await events(bus, t, seq)
    call_ev = next(e for e in evs if e.kind == "call")
    assert (call_ev.seat, call_ev.amount, call_ev.detail) == (3, 8, "preaction")
    # call_any stays for the hand: on the flop C (first to act) checks by itself, then it is A's turn
    check = next(e for e in evs if e.kind == "check")
    assert (check.seat, check.detail, check.street) == (3, "preaction", "flop")
    after = (await cmd(bus, t, GetView(viewer=c))).view
    assert after.hand.street == "flop" and after.hand.actor_seat_id == 1 and after.hand.preaction == "call_any"


async def test_preaction_dropped_when_it_no_longer_makes_sense(stack, bus):
    t = await create_table(bus)
    a, b, c = await seat(bus, t, [100, 100, 20])  # C (BB) is short
    v = await deal(bus, t, [a, b, c])
    await cmd(bus, t, SetPreAction(participant_id=c, preaction="call_any"))
    await cmd(bus, t, Act(participant_id=a, action="raiseTo", amount=30))
    await cmd(bus, t, Act(participant_id=b, action="call"))
    mine = (await cmd(bus, t, GetView(viewer=c))).view
    assert mine.hand.phase == "betting" and mine.hand.street == "flop"  # A and B play on
    me = next(s for s in mine.hand.seats if s.seat == 3)
    assert me.all_in and me.stack == 0 and (await balance(bus, c)).reserved == 20  # settled at the hand's end
    assert mine.hand.preaction is None  # all-in: nothing left to decide, the pre-action is gone
    with pytest.raises(BusError) as e:
        await cmd(bus, t, SetPreAction(participant_id=c, preaction="call_any"))
    assert e.value.code == "illegal_action" and e.value.details["reason"] == "invalid_preaction"
    _ = v


async def test_preaction_cleared_at_hand_end(stack, bus):
    t = await create_table(bus)
    a, b = await seat(bus, t, [100, 100])  # heads-up: the button (A) is the small blind and acts first
    v = await deal(bus, t, [a, b])
    assert actor_pid(v) == a
    await cmd(bus, t, SetPreAction(participant_id=b, preaction="call_any"))
    await cmd(bus, t, Act(participant_id=a, action="fold"))
    assert (await cmd(bus, t, GetView())).view.hand.phase == "over"
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, [a, b])  # B is the button now and acts first
    mine = (await cmd(bus, t, GetView(viewer=b))).view
    assert mine.hand.hand_id != v.hand.hand_id and mine.hand.actor_seat_id == 2
    assert mine.hand.preaction is None and mine.hand.legal_actions.call == 1  # a real turn, nothing auto-played
    assert not [e for e in await events(bus, t, seq) if e.detail == "preaction"]
    await cmd(bus, t, Act(participant_id=b, action="fold"))
    with pytest.raises(BusError) as e:  # and none can be set for a finished hand
        await cmd(bus, t, SetPreAction(participant_id=a, preaction="fold"))
    assert e.value.code == "hand_closed"


# --- auto-rebuy ----------------------------------------------------------------------------


async def draw_table(bus, max_buy_in=250):
    return await create_table(
        bus,
        rules_version="draw5-1",
        small_blind=0,
        big_blind=0,
        ante=5,
        min_buy_in=5,
        max_buy_in=max_buy_in,
        auto_rebuy=True,
    )


async def fold_out(bus, t, loser):
    """Play one hand in which `loser` folds as soon as it is their turn (the others check/call)."""
    for _ in range(30):
        v = (await cmd(bus, t, GetView())).view
        if v.hand.phase == "over":
            return
        who = actor_pid(v)
        mine = (await cmd(bus, t, GetView(viewer=who))).view.hand.legal_actions
        if mine.draw is not None:
            act = Act(participant_id=who, action="draw")
        elif who == loser:
            act = Act(participant_id=who, action="fold")
        else:
            act = Act(participant_id=who, action="check" if mine.check else "call")
        await cmd(bus, t, act)
    raise AssertionError("hand did not end")


async def test_auto_rebuy_tops_up_within_the_balance_and_stops_when_the_player_leaves(stack, bus):
    t = await draw_table(bus)  # maximum buy-in 250
    a, b, c = await seat(bus, t, [150, 200, 200])  # A: 150 of 200 at the table, 50 left in the account
    await cmd(bus, t, SetAutoRebuy(participant_id=a, enabled=True))
    assert (await balance(bus, a)).available == 50
    seq = (await cmd(bus, t, GetView())).view.seq
    v = await deal(bus, t, [a, b, c])
    evs = await events(bus, t, seq)
    rebuys = [e for e in evs if e.kind == "rebuy"]
    # before the deal the top-up wanted 250 - 150, but only the 50 left in the account could be bought
    assert [(e.participant_id, e.amount) for e in rebuys] == [(a, 50)]
    assert rebuys[0].seq < next(e.seq for e in evs if e.kind == "hand_start")
    hs = next(s for s in v.hand.seats if s.participant_id == a)
    assert hs.stack + hs.committed == 200
    bal = await balance(bus, a)
    assert bal.available == 0 and bal.reserved + bal.in_play == 200
    await fold_out(bus, t, a)
    # nothing left to buy: the next hand deals without a top-up
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, [a, b, c])
    assert not [e for e in await events(bus, t, seq) if e.kind == "rebuy"]
    # the player leaves mid-hand: cashed out after the hand, never topped up again
    assert (await cmd(bus, t, Leave(participant_id=a))).status in ("leaving", "left")
    await fold_out(bus, t, a)
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, [b, c])
    assert not [e for e in await events(bus, t, seq) if e.kind == "rebuy"]
    bal = await balance(bus, a)
    # the stack went back to the account and none of it was bought back in
    assert (
        (bal.reserved, bal.in_play) == (0, 0)
        and bal.available >= 185
        and a not in [s.participant_id for s in (await cmd(bus, t, GetView())).view.seats]
    )


async def test_auto_rebuy_tops_up_to_the_maximum_until_switched_off(stack, bus):
    t = await draw_table(bus, max_buy_in=100)
    a, b = await seat(bus, t, [100, 100], auto_rebuy=True)  # asked at join; the maximum is 100
    v = await deal(bus, t, [a, b])
    await fold_out(bus, t, a)  # A loses the ante (95), B wins it (105: above the maximum, no top-up)
    v2 = await deal(bus, t, [a, b])
    assert [(e.participant_id, e.amount) for e in await events(bus, t, v.seq) if e.kind == "rebuy"] == [(a, 5)]
    hs = next(s for s in v2.hand.seats if s.participant_id == a)
    assert hs.stack + hs.committed == 100  # topped up to the table's maximum
    # switched off: no more top-ups
    await cmd(bus, t, SetAutoRebuy(participant_id=a, enabled=False))
    await fold_out(bus, t, a)
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, [a, b])
    assert not [e for e in await events(bus, t, seq) if e.kind == "rebuy"]


async def test_set_auto_rebuy_refused_where_the_table_does_not_allow_it(stack, bus):
    t = await create_table(bus)  # nlhe-1, auto_rebuy off
    (a,) = await seat(bus, t, [100], auto_rebuy=True)
    seq = (await cmd(bus, t, GetView())).view.seq
    with pytest.raises(BusError) as e:
        await cmd(bus, t, SetAutoRebuy(participant_id=a, enabled=True))
    assert e.value.code == "forbidden" and e.value.details["reason"] == "auto_rebuy_not_allowed"
    assert (await cmd(bus, t, GetView())).view.seq == seq  # nothing changed
    assert (await cmd(bus, t, SetAutoRebuy(participant_id=a, enabled=False))).status == "ok"  # off is fine
    with pytest.raises(BusError) as e:
        await cmd(bus, t, SetAutoRebuy(participant_id="stranger", enabled=True))
    assert e.value.code == "not_seated"


# --- limits at ante-nl-1 (no buy-in, no wallet session: the table's own session id) ---------


async def freeze(bus, owner, frozen=True):
    await call(
        bus,
        subjects.LIMITS_FREEZE,
        LimitsFreeze(scope=Scope.OWNER, scope_id=owner, frozen=frozen, reason="test"),
        FreezeState,
    )


async def ante_players(bus, t, n):
    out = []
    for _ in range(n):
        pid, owner = await player(bus)
        await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="agent"))
        out.append((pid, owner))
    return out


async def wait_hand(bus, t, timeout=5.0):
    for _ in range(int(timeout / 0.02)):
        v = (await cmd(bus, t, GetView())).view
        if v.hand is not None and v.hand.phase != "over":
            return v
        await asyncio.sleep(0.02)
    raise AssertionError("no hand started")


async def test_frozen_owner_is_not_dealt_into_an_ante_hand(stack, bus):
    t = await create_table(bus, rules_version="ante-nl-1", intermission_seconds=0.1)
    a, oa = await player(bus)
    await freeze(bus, oa)  # ante-nl-1 takes no buy-in: joining asks nothing, the deal does
    seq = (await cmd(bus, t, GetView())).view.seq
    await cmd(bus, t, Join(participant_id=a, owner_id=oa, kind="agent"))
    (b, _), (c, _) = await ante_players(bus, t, 2)
    v = await wait_hand(bus, t)
    dealt = {s.participant_id for s in v.hand.seats}
    assert dealt == {b, c}  # the frozen owner's participant was refused at start_hand
    closed = [e for e in await events(bus, t, seq) if e.kind == "session_closed" and e.participant_id == a]
    assert closed and closed[0].detail == "limit"
    assert a not in [s.participant_id for s in v.seats]
    bal = await balance(bus, a)
    assert (bal.available, bal.in_play) == (200, 0)  # no ante was taken from the frozen account


async def test_ante_wager_refused_when_the_owner_is_frozen_mid_hand(stack, bus):
    t = await create_table(bus, rules_version="ante-nl-1", intermission_seconds=0.05)
    players = dict(await ante_players(bus, t, 2))
    v = await wait_hand(bus, t)
    who = actor_pid(v)
    await freeze(bus, players[who])
    before = (await cmd(bus, t, GetView())).view
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Act(participant_id=who, action="bet", amount=20))
    assert e.value.code == "frozen"
    after = (await cmd(bus, t, GetView())).view
    assert after.seq == before.seq and after.hand == before.hand  # nothing changed
    assert (await balance(bus, who)).in_play == 10  # only the ante
    await cmd(bus, t, Act(participant_id=who, action="fold"))  # risk-free moves still work
    await freeze(bus, players[who], frozen=False)
