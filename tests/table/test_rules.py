"""Named acceptance tests of the table service (real NATS, Redis, wallet, limits, timer)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest

from felt_contracts import subjects
from felt_contracts.table import (
    Act,
    Disconnect,
    GetEvents,
    GetHand,
    GetView,
    Join,
    Leave,
    ListHands,
    Reconnect,
    Start,
    TableRequest,
)
from felt_contracts.timer import DeadlineKind, TimerFired
from felt_runtime.bus import BusError
from tests.support.waiting import refused as support_refused

from tests.table.conftest import balance, cmd, create_table, player


async def seat_players(bus, t, n, buy_in=100):
    out = []
    for _ in range(n):
        pid, owner = await player(bus)
        await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=buy_in))
        out.append(pid)
    return out


async def start(bus, t, pids):
    for p in pids[:-1]:
        with pytest.raises(BusError):
            await cmd(bus, t, Start(participant_id=p)) if p == pids[0] else (_ for _ in ()).throw(
                BusError("conflict", "skip")
            )
    return await cmd(bus, t, Start(participant_id=pids[-1]))


async def ready_and_start(bus, t, pids):
    from felt_contracts.table import Ready

    for p in pids:
        await cmd(bus, t, Ready(participant_id=p))
    return await cmd(bus, t, Start(participant_id=pids[0]))


def actor_pid(view):
    return next(s.participant_id for s in view.seats if s.seat == view.hand.actor_seat_id)


async def started_hand(bus, players: int):
    """A fresh table with `players` seated and a hand started: (table id, participants, view)."""
    t = await create_table(bus)
    pids = await seat_players(bus, t, players)
    await ready_and_start(bus, t, pids)
    return t, pids, (await cmd(bus, t, GetView())).view


async def test_explicit_start_only_with_two_ready(stack, bus):
    t = await create_table(bus)
    a, b = await seat_players(bus, t, 2)
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Start(participant_id=a))
    assert e.value.code == "conflict" and e.value.details["reason"] == "not_enough_ready"
    assert (await cmd(bus, t, GetView())).view.hand is None
    assert (await cmd(bus, t, Start(participant_id=b))).status == "started"
    assert (await cmd(bus, t, GetView())).view.hand.phase == "betting"


async def test_a_start_sent_while_a_hand_runs_deals_that_seat_in_from_the_next_hand(stack, bus):
    """At a busy table the pause between hands is short: a newcomer's "Deal" that lands while a
    hand runs must not be lost (it was refused `hand_running`, and the seat was never dealt in)."""
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await ready_and_start(bus, t, pids)
    c, oc = await player(bus)
    await cmd(bus, t, Join(participant_id=c, owner_id=oc, kind="agent", buy_in=50))
    r = await cmd(bus, t, Start(participant_id=c))
    assert r.status == "ready"
    assert (await cmd(bus, t, Start(participant_id=c))).status == "ready"  # said twice: one ready event
    v = (await cmd(bus, t, GetView())).view
    assert next(s for s in v.seats if s.participant_id == c).ready
    readies = [
        e for e in (await cmd(bus, t, GetEvents(after_seq=0))).events if e.kind == "ready" and e.participant_id == c
    ]
    assert len(readies) == 1
    await cmd(bus, t, Act(participant_id=actor_pid(v), action="fold"))  # the hand ends
    assert (await cmd(bus, t, Start(participant_id=pids[0]))).status == "started"  # no new click of c's
    v = (await cmd(bus, t, GetView(viewer=c))).view
    assert len(v.hand.hole_cards) == 2


async def test_join_during_hand_watches_until_next_deal(stack, bus):
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await ready_and_start(bus, t, pids)
    c, oc = await player(bus)
    r = await cmd(bus, t, Join(participant_id=c, owner_id=oc, kind="agent", buy_in=50))
    assert r.status == "waiting"
    v = (await cmd(bus, t, GetView(viewer=c))).view
    assert v.your_seat_id == r.seat and v.hand.hole_cards is None and v.hand.legal_actions is None
    assert r.seat not in [s.seat for s in v.hand.seats]
    assert next(s for s in v.seats if s.participant_id == c).status == "waiting"
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Act(participant_id=c, action="fold"))
    assert e.value.code == "not_seated"
    await cmd(bus, t, Act(participant_id=actor_pid(v), action="fold"))
    await ready_and_start(bus, t, pids + [c])
    v = (await cmd(bus, t, GetView(viewer=c))).view
    assert r.seat in [s.seat for s in v.hand.seats] and len(v.hand.hole_cards) == 2


async def test_one_participant_per_owner_per_table(stack, bus):
    t = await create_table(bus)
    t2 = await create_table(bus)
    a, owner = await player(bus)
    b, _ = await player(bus, owner=owner)
    await cmd(bus, t, Join(participant_id=a, owner_id=owner, kind="agent", buy_in=50))
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Join(participant_id=b, owner_id=owner, kind="agent", buy_in=50))
    assert e.value.code == "already_seated" and e.value.details["reason"] == "one_per_owner"
    with pytest.raises(BusError) as e:  # one active table session per participant
        await cmd(bus, t2, Join(participant_id=a, owner_id=owner, kind="agent", buy_in=50))
    assert e.value.code == "already_seated" and e.value.details["reason"] == "active_session"
    assert (await cmd(bus, t2, Join(participant_id=b, owner_id=owner, kind="agent", buy_in=50))).seat == 1
    assert len((await cmd(bus, t, GetView())).view.seats) == 1


async def test_admission_agents_only(stack, bus):
    t = await create_table(bus, admission="AGENTS_ONLY")
    h, oh = await player(bus)
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Join(participant_id=h, owner_id=oh, kind="human", buy_in=50))
    assert e.value.code == "admission"


async def test_double_spend_guard_after_mid_hand_leave(stack, bus):
    t = await create_table(bus)
    other = await create_table(bus)
    pids = await seat_players(bus, t, 3)
    await ready_and_start(bus, t, pids)
    v = (await cmd(bus, t, GetView())).view
    # a player who posted a blind leaves mid-hand: chips stay committed, check/fold is queued; its
    # reserve is the hold until the hand settles (nothing in escrow at a buy-in table)
    bb = next(s.participant_id for s in v.seats if s.seat == v.hand.big_blind_seat)
    assert (await cmd(bus, t, Leave(participant_id=bb))).status == "leaving"
    b = await balance(bus, bb)
    assert (b.reserved, b.in_play) == (100, 0)
    for table in (other, t):
        with pytest.raises(BusError) as e:
            await cmd(bus, table, Join(participant_id=bb, owner_id=f"o-{bb}", kind="agent", buy_in=50))
        assert e.value.code == "already_seated"
    # finish the hand: everyone else folds to the end
    for _ in range(10):
        v = (await cmd(bus, t, GetView())).view
        if v.hand.phase == "over":
            break
        await cmd(bus, t, Act(participant_id=actor_pid(v), action="fold"))
    b = await balance(bus, bb)
    assert b.in_play == 0 and b.reserved == 0
    assert (await cmd(bus, other, Join(participant_id=bb, owner_id=f"o-{bb}", kind="agent", buy_in=50))).seat == 1
    total = 0
    for p in pids:
        x = await balance(bus, p)
        total += x.available + x.reserved + x.in_play
    assert total == 600


async def test_stale_timeout_ignored_after_player_acted(stack, bus):
    t, pids, v = await started_hand(bus, 3)
    old_turn, old_seat, hand_id = v.hand.turn_id, v.hand.actor_seat_id, v.hand.hand_id
    await cmd(bus, t, Act(participant_id=actor_pid(v), action="call"))
    before = (await cmd(bus, t, GetView())).view
    assert before.hand.turn_id != old_turn
    fired = TimerFired(
        deadline_id="stale",
        owner="table",
        key=f"{t}:turn",
        kind=DeadlineKind.TURN,
        payload={"table_id": t, "k": "turn", "h": hand_id, "turn": old_turn, "seat": old_seat},
        due_at=datetime.now(UTC),
        fired_at=datetime.now(UTC),
    )
    await bus.publish(fired.model_dump(mode="json"), subjects.timer_fired("table"))
    await asyncio.sleep(0.3)
    after = (await cmd(bus, t, GetView())).view
    assert after.seq == before.seq and after.hand == before.hand  # nothing happened


async def test_turn_timeout_folds_through_the_queue(stack, bus):
    t = await create_table(bus, turn_seconds=0.3)
    pids = await seat_players(bus, t, 2)
    await ready_and_start(bus, t, pids)
    v = (await cmd(bus, t, GetView())).view
    await asyncio.sleep(1.0)
    v2 = (await cmd(bus, t, GetView())).view
    assert v2.hand.phase == "over"  # the first actor faced the big blind: folded by the timer
    evs = (await cmd(bus, t, GetEvents(after_seq=v.seq))).events
    assert any(e.kind == "fold" and e.detail == "timeout" for e in evs)


async def test_disconnect_then_reconnect_within_grace_restores_the_hand(stack, bus):
    t, pids, v = await started_hand(bus, 2)
    who = actor_pid(v)
    await cmd(bus, t, Disconnect(participant_id=who))
    await asyncio.sleep(0.1)
    r = await cmd(bus, t, Reconnect(participant_id=who))
    assert r.view.hand.hand_id == v.hand.hand_id and r.view.hand.legal_actions is not None
    await asyncio.sleep(0.8)  # past the (0.5 s) grace: nothing happens, it was cancelled
    v2 = (await cmd(bus, t, GetView(viewer=who))).view
    assert v2.hand.phase == "betting" and v2.hand.actor_seat_id == v.hand.actor_seat_id
    assert len(v2.hand.hole_cards) == 2


async def test_disconnect_past_grace_folds_through_the_queue(stack, bus):
    t, pids, v = await started_hand(bus, 2)
    who = actor_pid(v)
    await cmd(bus, t, Disconnect(participant_id=who))
    await asyncio.sleep(1.2)
    v2 = (await cmd(bus, t, GetView())).view
    assert v2.hand.phase == "over"
    assert who not in [s.participant_id for s in v2.seats]  # left after the hand, stack cashed out
    b = await balance(bus, who)
    assert b.reserved == 0 and b.in_play == 0 and b.available == 200 - 1  # lost the small blind


async def test_bad_input_gets_clear_codes_and_changes_nothing(stack, bus):
    t, pids, v = await started_hand(bus, 3)
    actor = actor_pid(v)
    idle = next(p for p in pids if p != actor)
    idle_seat = next(s.seat for s in v.seats if s.participant_id == idle)

    async def refused(code, table, command):
        await support_refused(cmd(bus, table, command), code)
        after = (await cmd(bus, t, GetView())).view
        assert after.seq == v.seq and after.hand == v.hand

    await refused("forbidden", t, Act(participant_id=actor, action="call", seat=idle_seat))  # another seat
    await refused("not_your_turn", t, Act(participant_id=idle, action="call"))
    await refused("invalid_amount", t, Act(participant_id=actor, action="raiseTo", amount=10**6))
    await refused("invalid_amount", t, Act(participant_id=actor, action="raiseTo", amount=3))  # below min raise
    await refused("malformed", t, Act(participant_id=actor, action="call", amount=5))
    await refused("illegal_action", t, Act(participant_id=actor, action="check"))
    await refused("stale_turn", t, Act(participant_id=actor, action="call", turn_id=v.hand.turn_id - 1))
    await refused("hand_closed", t, Act(participant_id=actor, action="call", hand_id="old-hand"))
    await refused("not_seated", t, Act(participant_id="stranger", action="fold"))
    await refused("not_found", "no-such-table", GetView())
    # malformed bodies
    raw = await bus.request(b'{"table_id": "x", "command": {"type": "nope"}}', subjects.table_command(t), timeout=5)
    assert json.loads(raw.body)["error"]["code"] == "malformed"
    raw = await bus.request(b"not json", subjects.table_command(t), timeout=5)
    assert json.loads(raw.body)["error"]["code"] == "malformed"
    raw = await bus.request(
        TableRequest(table_id=t, command=GetView()).model_dump_json().replace('"view"', '"view", "x": 1').encode(),
        subjects.table_command(t),
        timeout=5,
    )
    assert json.loads(raw.body)["error"]["code"] == "malformed"
    after = (await cmd(bus, t, GetView())).view
    assert after.seq == v.seq
    # a finished hand
    hand_id = v.hand.hand_id
    while (await cmd(bus, t, GetView())).view.hand.phase != "over":
        await cmd(bus, t, Act(participant_id=actor_pid((await cmd(bus, t, GetView())).view), action="fold"))
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Act(participant_id=actor, action="fold", hand_id=hand_id))
    assert e.value.code == "hand_closed"


async def test_events_are_numbered_redacted_and_history_is_per_viewer(stack, bus):
    t = await create_table(bus)
    a, b = await seat_players(bus, t, 2)
    await ready_and_start(bus, t, [a, b])
    for _ in range(20):
        v = (await cmd(bus, t, GetView())).view
        if v.hand.phase == "over":
            break
        mine = (await cmd(bus, t, GetView(viewer=actor_pid(v)))).view
        la = mine.hand.legal_actions
        await cmd(bus, t, Act(participant_id=actor_pid(v), action="check" if la.check else "call"))
    pub = (await cmd(bus, t, GetEvents(after_seq=0))).events
    assert [e.seq for e in pub] == list(range(pub[0].seq, pub[0].seq + len(pub)))
    deals = [e for e in pub if e.kind == "deal_hole"]
    assert len(deals) == 2 and all(not e.cards for e in deals)
    mine = (await cmd(bus, t, GetEvents(after_seq=0, viewer=a))).events
    own = [e for e in mine if e.kind == "deal_hole" and e.participant_id == a]
    assert len(own) == 1 and len(own[0].cards) == 2 and own[0].private
    assert any(e.kind == "turn" and e.turn is not None and e.turn.deadline is not None for e in pub)
    hands = (await cmd(bus, t, ListHands())).hands
    assert len(hands) == 1 and hands[0].status == "settled" and hands[0].rules_version == "nlhe-1"
    h = (await cmd(bus, t, GetHand(hand_id=hands[0].hand_id, viewer=a, format="phh"))).hand
    assert h.phh and 'variant = "NT"' in h.phh and "????" in h.phh or "sm" in h.phh
    spectator = (await cmd(bus, t, GetHand(hand_id=hands[0].hand_id))).hand
    if not hands[0].showdown:
        assert all(not op.cards for op in spectator.operations if op.kind == "deal_hole")
