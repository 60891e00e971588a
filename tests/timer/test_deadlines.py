"""Schedule, fire once with the payload echoed, replace by key, cancel, query."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

from felt_contracts import subjects
from felt_contracts.timer import (
    CancelDeadline,
    DeadlineCancelled,
    DeadlineInfo,
    DeadlineKind,
    GetDeadline,
    TimerFired,
)
from felt_runtime.bus import call
from tests.timer.conftest import LATE, WAIT, schedule

PAYLOAD = {"table_id": "tb1", "hand_id": "h7", "turn_id": 3, "seat": 2}


async def test_fires_once_at_due_time_with_payload_echoed(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    sent = time.monotonic()
    done = await schedule(broker, owner=owner, key="tb1:turn", kind="turn", delay_seconds=0.6, payload=PAYLOAD)
    assert done.replaced is False and done.owner == owner and done.key == "tb1:turn"
    assert 0.6 - LATE < (done.due_at - datetime.now(UTC)).total_seconds() <= 0.65
    await fired.wait_for(1, timeout=WAIT)
    await asyncio.sleep(0.5)  # nothing more may come
    assert len(fired.received) == 1
    at, body = fired.received[0]
    assert 0.55 <= at - sent <= 0.6 + LATE, at - sent
    event = TimerFired.model_validate(body)
    assert event.payload == PAYLOAD and event.kind is DeadlineKind.TURN
    assert event.key == "tb1:turn" and event.owner == owner
    assert event.deadline_id == done.deadline_id == event.event_id
    assert event.due_at == done.due_at and event.fired_at >= event.due_at
    assert event.attempt == 1 and event.time_bank_used_seconds == 0


async def test_fired_deadline_is_gone(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    await schedule(broker, owner=owner, key="k", kind="intermission", delay_seconds=1.5)
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="k"), DeadlineInfo)
    assert info.pending and info.kind is DeadlineKind.INTERMISSION
    await fired.wait_for(1, timeout=WAIT)
    await asyncio.sleep(0.1)
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="k"), DeadlineInfo)
    assert not info.pending
    gone = await call(broker, subjects.TIMER_CANCEL, CancelDeadline(owner=owner, key="k"), DeadlineCancelled)
    assert gone.cancelled is False


async def test_reschedule_same_key_replaces_pending(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    first = await schedule(broker, owner=owner, key="tb1:turn", kind="turn", delay_seconds=1.5, payload={"turn_id": 1})
    second = await schedule(broker, owner=owner, key="tb1:turn", kind="turn", delay_seconds=3.0, payload={"turn_id": 2})
    assert second.replaced is True and second.deadline_id != first.deadline_id
    await asyncio.sleep(2.0)
    assert fired.events == []  # the first one was replaced, not fired
    await fired.wait_for(1, timeout=WAIT)
    await asyncio.sleep(0.3)
    assert [e["payload"] for e in fired.events] == [{"turn_id": 2}]
    assert fired.events[0]["deadline_id"] == second.deadline_id


async def test_cancel_prevents_firing(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    await schedule(broker, owner=owner, key="tb1:grace:p1", kind="disconnect", delay_seconds=1.5)
    await schedule(broker, owner=owner, key="tb1:grace:p2", kind="disconnect", delay_seconds=1.5)
    done = await call(broker, subjects.TIMER_CANCEL, CancelDeadline(owner=owner, key="tb1:grace:p1"), DeadlineCancelled)
    assert done.cancelled is True
    await fired.wait_for(1, timeout=WAIT)
    await asyncio.sleep(0.4)
    assert [e["key"] for e in fired.events] == ["tb1:grace:p2"]


async def test_keys_are_scoped_by_owner(timer, broker, listen, owner) -> None:
    other = owner + "x"
    mine, theirs = await listen(subjects.timer_fired(owner)), await listen(subjects.timer_fired(other))
    await schedule(broker, owner=owner, key="same", kind="other", delay_seconds=0.2)
    replaced = await schedule(broker, owner=other, key="same", kind="other", delay_seconds=0.2)
    assert replaced.replaced is False
    await mine.wait_for(1, WAIT)
    await theirs.wait_for(1, WAIT)
    assert len(mine.events) == len(theirs.events) == 1


async def test_default_durations_follow_the_seeds(timer, broker, owner) -> None:
    now = datetime.now(UTC)
    for kind, seconds in (("turn", 30), ("disconnect", 10), ("intermission", 30)):
        done = await schedule(broker, owner=owner, key=f"d:{kind}", kind=kind)
        assert abs((done.due_at - now).total_seconds() - seconds) < 1.0
        await call(broker, subjects.TIMER_CANCEL, CancelDeadline(owner=owner, key=f"d:{kind}"), DeadlineCancelled)


async def test_retried_schedule_with_same_message_id_is_idempotent(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    first = await schedule(broker, owner=owner, key="k", kind="other", delay_seconds=0.3, message_id=f"{owner}-m1")
    await fired.wait_for(1, timeout=WAIT)
    again = await schedule(broker, owner=owner, key="k", kind="other", delay_seconds=0.3, message_id=f"{owner}-m1")
    assert again == first  # the first outcome, nothing scheduled again
    await asyncio.sleep(0.6)
    assert len(fired.events) == 1


async def test_many_deadlines_fire_in_due_order(timer, broker, listen, owner) -> None:
    fired = await listen(subjects.timer_fired(owner))
    delays = [0.9, 0.3, 0.6, 0.45, 0.75]
    for i, d in enumerate(delays):
        await schedule(broker, owner=owner, key=f"k{i}", kind="other", delay_seconds=d)
    await fired.wait_for(len(delays), timeout=WAIT)
    order = [e["key"] for e in fired.events]
    assert order == [f"k{i}" for i, _ in sorted(enumerate(delays), key=lambda x: x[1])]
