"""The turn deadlines of every table of the process, sent to the timer in batches.

A turn's deadline is not awaited by the table (it states the deadline itself), so it need not
travel alone: the first turn queued opens a short window (`window`), and what every table queued
by its end leaves as one `ScheduleDeadlines`, one request at a time, in the order the turns
happened. Each deadline leaves with its delay less the time it waited, so the timer fires it
when the table said. A deadline that a newer one of the same key replaces before it is sent is
dropped (the timer would replace it anyway). One request per action per table would cost the
table and the timer more CPU than the timer's own work (a NATS request/reply, its envelope and a
Redis round trip each); at human pace, without the window, the request in flight would rarely
have more than one turn queued behind it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from felt_contracts import subjects
from felt_contracts.timer import MAX_SCHEDULE_BATCH, DeadlinesScheduled, ScheduleDeadline, ScheduleDeadlines
from felt_runtime.bus import BusError
from felt_table.ports.retry import retryable

log = logging.getLogger("felt.table.turn_clocks")

Ask = Callable[[str, Any, type[DeadlinesScheduled]], Awaitable[DeadlinesScheduled]]
#: called when the timer did not answer a table's deadline (the table pings it until it does)
Silent = Callable[[], None]
#: the shortest delay a deadline leaves with (the timer's own resolution is 1 ms)
MIN_DELAY = 0.001


class TurnClocks:
    def __init__(self, ask: Ask, window: float) -> None:
        """`window`: seconds the first queued turn waits for others to join its batch."""
        self.ask = ask
        self.window = window
        # by key, oldest first: the request, who to tell if the timer is silent, when it was queued
        self.pending: dict[str, tuple[ScheduleDeadline, Silent, float]] = {}
        self.task: asyncio.Task[None] | None = None

    def add(self, deadline: ScheduleDeadline, on_silent: Silent) -> None:
        self.pending.pop(deadline.key, None)
        self.pending[deadline.key] = (deadline, on_silent, time.monotonic())
        if self.task is None or self.task.done():
            # a context of its own: the batch is nobody's action (each deadline keeps its own
            # correlation id)
            self.task = asyncio.create_task(self._drain(), name="table-turn-clocks", context=contextvars.Context())

    async def _drain(self) -> None:
        while self.pending:
            if self.window > 0:
                await asyncio.sleep(self.window)
            keys = list(self.pending)[:MAX_SCHEDULE_BATCH]
            await self._send([self.pending.pop(k) for k in keys])

    async def _send(self, items: list[tuple[ScheduleDeadline, Silent, float]]) -> None:
        sent = time.monotonic()
        deadlines = tuple(
            deadline.model_copy(update={"delay_seconds": max(MIN_DELAY, deadline.delay - (sent - queued))})
            for deadline, _, queued in items
        )
        try:
            res = await self.ask(
                subjects.TIMER_SCHEDULE_MANY, ScheduleDeadlines(deadlines=deadlines), DeadlinesScheduled
            )
        except BusError as exc:
            if not retryable(exc):
                log.warning("timer refused a batch of %d deadlines: %s", len(items), exc.message)
                return
            # once per table (bound methods compare equal)
            for on_silent in dict.fromkeys(silent for _, silent, _ in items):
                on_silent()
            return
        for deadline, outcome in zip(deadlines, res.outcomes, strict=True):
            if outcome.error is not None:
                log.warning("timer refused %s: %s", deadline.key, outcome.error.message)

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
