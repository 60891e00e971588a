"""Bus handlers of the timer: schedule, cancel, query deadlines; refill and read time banks.

Every subject answers concurrently (`CONCURRENCY` handlers in flight per subject): each handler
is one Lua script or read in Redis, atomic by itself, so nothing relies on one-at-a-time order (a
table sends its own timer requests one after the other). `schedule` is on the path of every
table action (the next turn's deadline): answered one at a time, every table's requests would
queue behind each other."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import TypeVar

from faststream.nats import NatsBroker
from redis.exceptions import RedisError

from felt_contracts import subjects
from felt_contracts.base import ErrorInfo, Request, new_id
from felt_contracts.errors import ErrorCode
from felt_contracts.timer import (
    CancelDeadline,
    DeadlineCancelled,
    DeadlineInfo,
    DeadlineKind,
    DeadlineScheduled,
    DeadlinesScheduled,
    GetDeadline,
    GetTimeBanks,
    RefillTimeBanks,
    ScheduleDeadline,
    ScheduleDeadlines,
    ScheduleOutcome,
    TimeBanks,
)
from felt_runtime.bus import BusError, responder
from felt_timer.store import IdempotencyConflict, Schedule, Scheduled, TimerStore, ms, to_time

CONFLICT = "message_id was used before with different content"
#: handlers in flight per subject
CONCURRENCY = 1024

Req = TypeVar("Req", bound=Request)
Res = TypeVar("Res")


def refusals(handler: Callable[[Req], Awaitable[Res]]) -> Callable[[Req], Awaitable[Res]]:
    """Redis trouble is `unavailable` (retry with the same message_id); a reused message_id
    with different content is `conflict`."""

    @functools.wraps(handler)
    async def wrapped(request: Req) -> Res:
        try:
            return await handler(request)
        except IdempotencyConflict:
            raise BusError(ErrorCode.CONFLICT, CONFLICT, message_id=request.message_id) from None
        except (RedisError, OSError) as exc:
            raise BusError(ErrorCode.UNAVAILABLE, f"deadline store unavailable ({type(exc).__name__})") from None

    return wrapped


def _schedule(req: ScheduleDeadline) -> Schedule:
    bank = None
    if req.time_bank is not None:
        tb = req.time_bank
        bank = (tb.table_id, tb.player_id, ms(tb.policy.initial_seconds))
    return Schedule(
        req,
        deadline_id=new_id(),
        owner=req.owner,
        key=req.key,
        kind=req.kind.value,
        delay_ms=max(1, ms(req.delay)),
        payload_json=json.dumps(req.payload, separators=(",", ":")),
        bank=bank,
    )


def _scheduled(s: Schedule, done: Scheduled) -> DeadlineScheduled:
    return DeadlineScheduled(
        deadline_id=done.deadline_id, owner=s.owner, key=s.key, due_at=to_time(done.due_ms), replaced=done.replaced
    )


def register(broker: NatsBroker, store: TimerStore) -> None:
    q = subjects.TIMER_QUEUE

    @responder(broker, subjects.TIMER_SCHEDULE, ScheduleDeadline, queue=q, concurrency=CONCURRENCY)
    @refusals
    async def schedule(req: ScheduleDeadline) -> DeadlineScheduled:
        """Set or replace the deadline (owner, key); it fires on felt.evt.timer.fired.<owner>."""
        s = _schedule(req)
        return _scheduled(s, await store.schedule(s))

    @responder(broker, subjects.TIMER_SCHEDULE_MANY, ScheduleDeadlines, queue=q, concurrency=CONCURRENCY)
    @refusals
    async def schedule_many(req: ScheduleDeadlines) -> DeadlinesScheduled:
        """`schedule` for each deadline, in order, in one round trip to Redis (the tables' turns:
        one request for what every table of a process queued meanwhile)."""
        items = [_schedule(d) for d in req.deadlines]
        outcomes = []
        for s, done in zip(items, await store.schedule_many(items), strict=True):
            if isinstance(done, IdempotencyConflict):
                error = ErrorInfo(code=ErrorCode.CONFLICT, message=CONFLICT, details={"message_id": done.args[0]})
                outcomes.append(ScheduleOutcome(error=error))
            else:
                outcomes.append(ScheduleOutcome(scheduled=_scheduled(s, done)))
        return DeadlinesScheduled(outcomes=tuple(outcomes))

    @responder(broker, subjects.TIMER_CANCEL, CancelDeadline, queue=q, concurrency=CONCURRENCY)
    @refusals
    async def cancel(req: CancelDeadline) -> DeadlineCancelled:
        """Cancel the deadline (owner, key); charges the time bank for the part of it used."""
        cancelled, used_ms = await store.cancel(req.owner, req.key)
        return DeadlineCancelled(
            owner=req.owner, key=req.key, cancelled=cancelled, time_bank_used_seconds=used_ms / 1000
        )

    @responder(broker, subjects.TIMER_GET, GetDeadline, queue=q, concurrency=CONCURRENCY)
    @refusals
    async def get(req: GetDeadline) -> DeadlineInfo:
        """The pending deadline (owner, key), if any."""
        found = await store.get(req.owner, req.key)
        if found is None:
            return DeadlineInfo(owner=req.owner, key=req.key, pending=False)
        return DeadlineInfo(
            owner=req.owner,
            key=req.key,
            pending=True,
            deadline_id=found.deadline_id,
            kind=DeadlineKind(found.kind),
            due_at=to_time(found.due_ms),
            in_time_bank=found.in_time_bank,
        )

    @responder(broker, subjects.TIMER_REFILL_BANKS, RefillTimeBanks, queue=q, concurrency=CONCURRENCY)
    @refusals
    async def refill_banks(req: RefillTimeBanks) -> TimeBanks:
        """Add the policy's refill to each player's time bank, up to its maximum."""
        p = req.policy
        balances = await store.refill(
            req,
            req.table_id,
            list(dict.fromkeys(req.player_ids)),
            ms(p.initial_seconds),
            ms(p.max_seconds),
            ms(p.refill_seconds),
        )
        return TimeBanks(table_id=req.table_id, seconds={k: v / 1000 for k, v in balances.items()})

    @responder(broker, subjects.TIMER_GET_BANKS, GetTimeBanks, queue=q, concurrency=CONCURRENCY)
    @refusals
    async def get_banks(req: GetTimeBanks) -> TimeBanks:
        """Time-bank balances of players at a table."""
        found = await store.banks(req.table_id, list(dict.fromkeys(req.player_ids)))
        default = ms(req.policy.initial_seconds) if req.policy else 0
        return TimeBanks(
            table_id=req.table_id, seconds={k: (v if v is not None else default) / 1000 for k, v in found.items()}
        )
