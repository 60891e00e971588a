"""Time bank: used only when the turn clock expires and the bank is above zero; extends once;
the time used is deducted exactly; off means the plain deadline; refills are capped."""

from __future__ import annotations

import asyncio
import time

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.timer import (
    CancelDeadline,
    DeadlineCancelled,
    DeadlineInfo,
    GetDeadline,
    GetTimeBanks,
    RefillTimeBanks,
    TimeBankPolicy,
    TimeBanks,
    TimeBankStarted,
    TimerFired,
)
from felt_runtime.bus import BusError, call
from tests.timer.conftest import LATE, WAIT, schedule


async def banks(broker, table: str, *players: str, policy: TimeBankPolicy | None = None) -> dict[str, float]:
    got = await call(
        broker,
        subjects.TIMER_GET_BANKS,
        GetTimeBanks(table_id=table, player_ids=list(players), policy=policy),
        TimeBanks,
    )
    return got.seconds


def turn(owner: str, table: str, player: str, *, turn_s: float, policy: TimeBankPolicy | None) -> dict:
    bank = {"table_id": table, "player_id": player, "policy": policy} if policy is not None else None
    return dict(
        owner=owner,
        key=f"{table}:turn",
        kind="turn",
        delay_seconds=turn_s,
        payload={"table_id": table, "turn_id": 1, "seat": 0},
        time_bank=bank,
    )


async def test_expired_turn_with_bank_extends_once_then_fires_and_deducts(timer, broker, listen, owner) -> None:
    fired, started = await listen(subjects.timer_fired(owner)), await listen(subjects.timer_bank_started(owner))
    policy = TimeBankPolicy(initial_seconds=1.5, max_seconds=2, refill_seconds=0.1)
    t0 = time.monotonic()
    done = await schedule(broker, **turn(owner, "tb", "alice", turn_s=0.3, policy=policy))
    await started.wait_for(1, timeout=WAIT)
    assert fired.events == []  # the turn clock expired, but the bank runs instead of firing
    bank_event = TimeBankStarted.model_validate(started.events[0])
    assert bank_event.deadline_id == done.deadline_id and bank_event.player_id == "alice"
    assert bank_event.bank_seconds == 1.5 and bank_event.turn_due_at == done.due_at
    assert (bank_event.due_at - bank_event.turn_due_at).total_seconds() == 1.5
    assert 0.25 <= started.received[0][0] - t0 <= 0.3 + LATE
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="tb:turn"), DeadlineInfo)
    assert info.pending and info.in_time_bank and info.due_at == bank_event.due_at
    await fired.wait_for(1, timeout=WAIT)
    assert 1.75 <= fired.received[0][0] - t0 <= 1.8 + LATE
    event = TimerFired.model_validate(fired.events[0])
    assert event.time_bank_used_seconds == 1.5 and event.due_at == bank_event.due_at
    assert event.payload == {"table_id": "tb", "turn_id": 1, "seat": 0}
    await asyncio.sleep(0.3)
    assert len(fired.events) == 1 and len(started.events) == 1
    assert await banks(broker, "tb", "alice") == {"alice": 0.0}


async def test_turn_cancelled_before_clock_expires_uses_no_bank(timer, broker, listen, owner) -> None:
    started = await listen(subjects.timer_bank_started(owner))
    policy = TimeBankPolicy(initial_seconds=2, max_seconds=4, refill_seconds=1)
    table = f"{owner}-t"
    await schedule(broker, **turn(owner, table, "bob", turn_s=1.0, policy=policy))
    await asyncio.sleep(0.15)
    done = await call(
        broker, subjects.TIMER_CANCEL, CancelDeadline(owner=owner, key=f"{table}:turn"), DeadlineCancelled
    )
    assert done.cancelled and done.time_bank_used_seconds == 0
    await asyncio.sleep(1.2)
    assert started.events == []
    assert await banks(broker, table, "bob") == {"bob": 2.0}


async def test_cancel_during_extension_deducts_only_the_part_used(timer, broker, listen, owner) -> None:
    fired, started = await listen(subjects.timer_fired(owner)), await listen(subjects.timer_bank_started(owner))
    policy = TimeBankPolicy(initial_seconds=3, max_seconds=5, refill_seconds=1)
    table = f"{owner}-t"
    await schedule(broker, **turn(owner, table, "carol", turn_s=0.3, policy=policy))
    await started.wait_for(1, timeout=WAIT)
    await asyncio.sleep(0.5)  # the player acts 0.5 s (plus the detection lag) into the bank
    done = await call(
        broker, subjects.TIMER_CANCEL, CancelDeadline(owner=owner, key=f"{table}:turn"), DeadlineCancelled
    )
    assert done.cancelled and 0.5 <= done.time_bank_used_seconds <= 0.5 + LATE
    left = (await banks(broker, table, "carol"))["carol"]
    assert left == pytest.approx(3 - done.time_bank_used_seconds, abs=0.001)
    await asyncio.sleep(0.3)
    assert fired.events == []


async def test_reschedule_during_extension_deducts_the_part_used(timer, broker, listen, owner) -> None:
    started = await listen(subjects.timer_bank_started(owner))
    policy = TimeBankPolicy(initial_seconds=3, max_seconds=5, refill_seconds=1)
    table = f"{owner}-t"
    await schedule(broker, **turn(owner, table, "dan", turn_s=0.3, policy=policy))
    await started.wait_for(1, timeout=WAIT)
    await asyncio.sleep(0.3)
    await schedule(broker, **turn(owner, table, "erin", turn_s=5, policy=policy))  # next player's turn
    left = (await banks(broker, table, "dan"))["dan"]
    assert 3 - 0.3 - LATE <= left <= 2.7
    await call(broker, subjects.TIMER_CANCEL, CancelDeadline(owner=owner, key=f"{table}:turn"), DeadlineCancelled)


async def test_bank_off_fires_at_plain_deadline(timer, broker, listen, owner) -> None:
    fired, started = await listen(subjects.timer_fired(owner)), await listen(subjects.timer_bank_started(owner))
    t0 = time.monotonic()
    await schedule(broker, **turn(owner, "nlhe", "frank", turn_s=0.3, policy=None))
    await fired.wait_for(1, timeout=WAIT)
    assert 0.25 <= fired.received[0][0] - t0 <= 0.3 + LATE
    assert fired.events[0]["time_bank_used_seconds"] == 0 and started.events == []


async def test_empty_bank_fires_at_plain_deadline(timer, broker, listen, owner) -> None:
    fired, started = await listen(subjects.timer_fired(owner)), await listen(subjects.timer_bank_started(owner))
    policy = TimeBankPolicy(initial_seconds=0, max_seconds=2, refill_seconds=0.5)
    t0 = time.monotonic()
    await schedule(broker, **turn(owner, f"{owner}-t", "gina", turn_s=0.3, policy=policy))
    await fired.wait_for(1, timeout=WAIT)
    assert fired.received[0][0] - t0 <= 0.3 + LATE and started.events == []


async def test_refill_adds_per_hand_up_to_max_and_is_idempotent(timer, broker, owner) -> None:
    policy = TimeBankPolicy(initial_seconds=1, max_seconds=2.5, refill_seconds=1)
    table = f"{owner}-t"
    assert await banks(broker, table, "h", "i") == {"h": 0.0, "i": 0.0}
    assert await banks(broker, table, "h", policy=policy) == {"h": 1.0}
    refill = RefillTimeBanks(table_id=table, player_ids=["h", "i"], policy=policy, message_id=f"{owner}:hand1")
    got = await call(broker, subjects.TIMER_REFILL_BANKS, refill, TimeBanks)
    assert got.seconds == {"h": 2.0, "i": 2.0}
    again = await call(broker, subjects.TIMER_REFILL_BANKS, refill, TimeBanks)  # a retry
    assert again.seconds == {"h": 2.0, "i": 2.0} and await banks(broker, table, "h") == {"h": 2.0}
    hand2 = RefillTimeBanks(table_id=table, player_ids=["h"], policy=policy, message_id=f"{owner}:hand2")
    assert (await call(broker, subjects.TIMER_REFILL_BANKS, hand2, TimeBanks)).seconds == {"h": 2.5}  # capped
    changed = RefillTimeBanks(table_id=table, player_ids=["i"], policy=policy, message_id=f"{owner}:hand1")
    with pytest.raises(BusError) as err:
        await call(broker, subjects.TIMER_REFILL_BANKS, changed, TimeBanks)
    assert err.value.code is ErrorCode.CONFLICT


async def test_used_bank_is_refilled_and_used_again(timer, broker, listen, owner) -> None:
    fired, started = await listen(subjects.timer_fired(owner)), await listen(subjects.timer_bank_started(owner))
    policy = TimeBankPolicy(initial_seconds=0.2, max_seconds=1, refill_seconds=0.3)
    table = f"{owner}-t"
    await schedule(broker, **turn(owner, table, "jo", turn_s=0.2, policy=policy))
    await fired.wait_for(1, timeout=WAIT)
    assert fired.events[0]["time_bank_used_seconds"] == 0.2
    assert await banks(broker, table, "jo") == {"jo": 0.0}
    refill = RefillTimeBanks(table_id=table, player_ids=["jo"], policy=policy)
    assert (await call(broker, subjects.TIMER_REFILL_BANKS, refill, TimeBanks)).seconds == {"jo": 0.3}
    await schedule(broker, **turn(owner, table, "jo", turn_s=0.2, policy=policy))
    await fired.wait_for(2, timeout=WAIT)
    assert [e["bank_seconds"] for e in started.events] == [0.2, 0.3]
    assert fired.events[1]["time_bank_used_seconds"] == 0.3


async def test_banks_are_per_table_and_player(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    policy = TimeBankPolicy(initial_seconds=0.2, max_seconds=1, refill_seconds=0)
    await schedule(broker, **turn(owner, f"{owner}-a", "kim", turn_s=0.2, policy=policy))
    await fired.wait_for(1, timeout=WAIT)
    assert await banks(broker, f"{owner}-a", "kim", "lee", policy=policy) == {"kim": 0.0, "lee": 0.2}
    assert await banks(broker, f"{owner}-b", "kim", policy=policy) == {"kim": 0.2}
