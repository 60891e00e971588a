"""Timer-service calls of a table: turn, disconnect-grace and intermission deadlines.

Turn deadlines are scheduled by a background task in the order the turns happened, so the
queue does not wait for the timer (the table states the deadline itself); grace and
intermission deadlines are awaited. A fired deadline re-enters the table's queue as `Fired`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from felt_contracts import subjects
from felt_contracts.timer import CancelDeadline, DeadlineCancelled, DeadlineKind, DeadlineScheduled, ScheduleDeadline
from felt_runtime.bus import BusError
from felt_table.deps import Deps

log = logging.getLogger("felt.table.deadlines")


@dataclass(frozen=True)
class Fired:
    """A timer deadline delivered to the table (internal: enters the same queue)."""

    payload: dict[str, Any]


class Deadlines:
    def __init__(self, table_id: str, deps: Deps) -> None:
        self.tid = table_id
        self.deps = deps
        self.pending: deque[tuple[str, DeadlineKind, float, dict[str, Any]]] = deque()
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._drain(), name=f"table-{self.tid}-timers")

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _drain(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.pending:
                job = self.pending.popleft()
                # a newer deadline under the same key replaces this one at the timer anyway (and
                # its turn is already over): only the newest pending one needs the round trip
                while self.pending and self.pending[0][0] == job[0]:
                    job = self.pending.popleft()
                await self.schedule(*job)

    def schedule_soon(self, key: str, kind: DeadlineKind, delay: float, payload: dict[str, Any]) -> None:
        """Schedule in order, without waiting for the timer service."""
        self.pending.append((key, kind, delay, payload))
        self.wake.set()

    async def schedule(self, key: str, kind: DeadlineKind, delay: float, payload: dict[str, Any]) -> datetime | None:
        """The deadline's due time, or None when the timer refused or is unavailable (logged)."""
        try:
            res = await self.deps.ask(subjects.TIMER_SCHEDULE, ScheduleDeadline(
                owner=self.deps.settings.timer_owner, key=f"{self.tid}:{key}", kind=kind, delay_seconds=delay,
                payload={"table_id": self.tid, **payload}), DeadlineScheduled)
            return res.due_at
        except BusError as exc:
            log.warning("timer refused/unavailable: %s", exc.message)
            return None

    async def cancel(self, key: str) -> None:
        try:
            await self.deps.ask(subjects.TIMER_CANCEL, CancelDeadline(owner=self.deps.settings.timer_owner,
                                                                      key=f"{self.tid}:{key}"), DeadlineCancelled)
        except BusError:
            pass
