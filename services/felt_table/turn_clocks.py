"""The turn deadlines of every table of the process, sent to the timer in batches.

A turn's deadline is not awaited by the table (it states the deadline itself), so it need not
travel alone: what every table queued while one request was in flight leaves as the next
`ScheduleDeadlines`, one request at a time, in the order the turns happened. A deadline that a
newer one of the same key replaces before it is sent is dropped (the timer would replace it
anyway). One request per action per table cost the table and the timer more CPU than the
timer's own work (a NATS request/reply, its envelope and a Redis round trip each).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from felt_contracts import subjects
from felt_contracts.timer import MAX_SCHEDULE_BATCH, DeadlinesScheduled, ScheduleDeadline, ScheduleDeadlines
from felt_runtime.bus import BusError
from felt_table.recovery import retryable

log = logging.getLogger("felt.table.turn_clocks")

Ask = Callable[[str, Any, type[DeadlinesScheduled]], Awaitable[DeadlinesScheduled]]
#: called when the timer did not answer a table's deadline (the table pings it until it does)
Silent = Callable[[], None]


class TurnClocks:
    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        self.pending: dict[str, tuple[ScheduleDeadline, Silent]] = {}  # by key, oldest first
        self.task: asyncio.Task[None] | None = None

    def add(self, deadline: ScheduleDeadline, on_silent: Silent) -> None:
        self.pending.pop(deadline.key, None)
        self.pending[deadline.key] = (deadline, on_silent)
        if self.task is None or self.task.done():
            # a context of its own: the batch is nobody's action (each deadline keeps its own
            # correlation id)
            self.task = asyncio.create_task(self._drain(), name="table-turn-clocks", context=contextvars.Context())

    async def _drain(self) -> None:
        while self.pending:
            keys = list(self.pending)[:MAX_SCHEDULE_BATCH]
            await self._send([self.pending.pop(k) for k in keys])

    async def _send(self, items: list[tuple[ScheduleDeadline, Silent]]) -> None:
        try:
            res = await self.ask(
                subjects.TIMER_SCHEDULE_MANY,
                ScheduleDeadlines(deadlines=tuple(d for d, _ in items)),
                DeadlinesScheduled,
            )
        except BusError as exc:
            if not retryable(exc):
                log.warning("timer refused a batch of %d deadlines: %s", len(items), exc.message)
                return
            for on_silent in dict.fromkeys(s for _, s in items):  # once per table (bound methods compare equal)
                on_silent()
            return
        for (d, _), outcome in zip(items, res.outcomes, strict=True):
            if outcome.error is not None:
                log.warning("timer refused %s: %s", d.key, outcome.error.message)

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
