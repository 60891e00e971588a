"""`ScheduleDeadlines`: several schedules in one request, applied in order, each idempotent by
its own message id (the tables' turn deadlines travel this way: felt_table/ports/turn_clocks.py)."""

from __future__ import annotations

import asyncio

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.timer import (
    MAX_SCHEDULE_BATCH,
    DeadlineInfo,
    DeadlinesScheduled,
    GetDeadline,
    ScheduleDeadline,
    ScheduleDeadlines,
)
from felt_runtime.bus import call
from tests.timer.conftest import WAIT, schedule


async def many(broker, *deadlines: ScheduleDeadline) -> DeadlinesScheduled:
    return await call(broker, subjects.TIMER_SCHEDULE_MANY, ScheduleDeadlines(deadlines=deadlines), DeadlinesScheduled)


async def test_a_batch_is_applied_in_order_and_a_later_deadline_of_a_key_replaces_an_earlier_one(
    timer, broker, listen, owner
) -> None:
    fired = await listen(subjects.timer_fired(owner))
    a1 = ScheduleDeadline(owner=owner, key="ta:turn", kind="turn", delay_seconds=0.3, payload={"turn_id": 1})
    b = ScheduleDeadline(owner=owner, key="tb:turn", kind="turn", delay_seconds=0.3, payload={"turn_id": 7})
    a2 = ScheduleDeadline(owner=owner, key="ta:turn", kind="turn", delay_seconds=0.4, payload={"turn_id": 2})
    res = await many(broker, a1, b, a2)
    first, second, third = (o.scheduled for o in res.outcomes)
    assert first is not None and second is not None and third is not None
    assert [o.error for o in res.outcomes] == [None, None, None]
    assert (first.key, first.replaced) == ("ta:turn", False)
    assert (third.key, third.replaced) == ("ta:turn", True) and third.deadline_id != first.deadline_id
    await fired.wait_for(2, timeout=WAIT)
    await asyncio.sleep(0.3)
    assert sorted((e["key"], e["payload"]["turn_id"]) for e in fired.events) == [("ta:turn", 2), ("tb:turn", 7)]
    assert {e["deadline_id"] for e in fired.events} == {second.deadline_id, third.deadline_id}


async def test_a_resent_batch_gets_its_first_outcomes_and_a_reused_id_is_refused_alone(timer, broker, owner) -> None:
    a = ScheduleDeadline(owner=owner, key="ka", kind="intermission", delay_seconds=30)
    b = ScheduleDeadline(owner=owner, key="kb", kind="intermission", delay_seconds=30)
    first = await many(broker, a, b)
    again = await many(broker, a, b)  # a retry: same message ids, same content
    assert [o.scheduled for o in again.outcomes] == [o.scheduled for o in first.outcomes]
    reused = b.model_copy(update={"delay_seconds": 60.0})  # b's message id, other content
    c = ScheduleDeadline(owner=owner, key="kc", kind="intermission", delay_seconds=30)
    res = await many(broker, reused, c)
    assert res.outcomes[0].scheduled is None and res.outcomes[0].error is not None
    assert res.outcomes[0].error.code is ErrorCode.CONFLICT
    assert res.outcomes[1].scheduled is not None and res.outcomes[1].error is None
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="kb"), DeadlineInfo)
    assert info.deadline_id == first.outcomes[1].scheduled.deadline_id  # the refused one changed nothing


@pytest.mark.parametrize("size", [0, MAX_SCHEDULE_BATCH + 1])
async def test_an_empty_or_oversized_batch_is_refused_and_schedules_nothing(timer, broker, owner, size) -> None:
    body = {
        "deadlines": [
            {"owner": owner, "key": f"k{n}", "kind": "intermission", "delay_seconds": 30} for n in range(size)
        ]
    }
    reply = await broker.request(body, subjects.TIMER_SCHEDULE_MANY, timeout=5)
    answer = await reply.decode()
    assert answer["ok"] is False and answer["error"]["code"] == ErrorCode.MALFORMED.value
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="k0"), DeadlineInfo)
    assert info.pending is False
    # the single schedule still answers as before
    assert (await schedule(broker, owner=owner, key="k0", kind="intermission", delay_seconds=30)).replaced is False


async def test_a_batch_after_valkey_lost_its_scripts_loads_the_script_and_schedules(
    timer, broker, owner, redis_url
) -> None:
    """The batch calls the script by its hash; a Valkey that lost its scripts (a restart, SCRIPT
    FLUSH) answers NOSCRIPT, and the timer loads it and schedules every deadline once."""
    from felt_runtime.redis import make_redis

    redis = make_redis(redis_url)
    try:
        await redis.script_flush()
    finally:
        await redis.aclose()
    a = ScheduleDeadline(owner=owner, key="after-flush", kind="intermission", delay_seconds=30)
    res = await many(broker, a)
    assert res.outcomes[0].scheduled is not None and res.outcomes[0].scheduled.replaced is False
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="after-flush"), DeadlineInfo)
    assert info.pending and info.deadline_id == res.outcomes[0].scheduled.deadline_id
