"""Timer-service calls of a table: turn, disconnect-grace and intermission deadlines.

Turn deadlines are scheduled in the order the turns happened without the queue waiting for
the timer (the table states the deadline itself; `felt_table.ports.turn_clocks` batches them with
every other table's); grace and intermission deadlines are awaited. Each deadline is a model
of `felt_contracts.deadlines` (its key, timer kind and echoed payload in one place); a fired
one re-enters the table's queue as `Fired` with that model parsed back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from felt_contracts import subjects
from felt_contracts.deadlines import TableDeadline, TurnDeadline
from felt_contracts.timer import (
    CancelDeadline,
    DeadlineCancelled,
    DeadlineScheduled,
    RefillTimeBanks,
    ScheduleDeadline,
    TimeBankPolicy,
    TimeBanks,
    TimeBankUse,
)
from pydantic import ValidationError

from felt_runtime.bus import BusError
from felt_runtime.logs import CORRELATION
from felt_table.ports.deps import Deps
from felt_table.ports.retry import retryable

log = logging.getLogger("felt.table.deadlines")


@dataclass(frozen=True)
class Fired:
    """A timer deadline delivered to the table (internal: enters the same queue)."""

    deadline: TableDeadline


@dataclass(frozen=True)
class BankStarted:
    """The timer's `TimeBankStarted` for one of our turns (internal: enters the same queue)."""

    deadline: TurnDeadline
    bank_seconds: float
    turn_due_at: datetime  # the turn clock that expired
    due_at: datetime  # the turn's new deadline


def bank_use(table_id: str, pid: str | None, policy: TimeBankPolicy | None) -> TimeBankUse | None:
    """The time bank to attach to `pid`'s turn (None: no bank, or an id the timer cannot key)."""
    if policy is None or pid is None:
        return None
    try:
        return TimeBankUse(table_id=table_id, player_id=pid, policy=policy)
    except ValidationError:
        log.warning("no time bank for an id the timer cannot key", extra={"participant_id": pid[:100]})
        return None


class Deadlines:
    def __init__(self, table_id: str, deps: Deps) -> None:
        self.tid = table_id
        self.deps = deps
        self.on_silent: Callable[[], None] = lambda: None  # the timer did not answer (the table waits for it)

    def schedule_soon(self, deadline: TableDeadline, delay: float, time_bank: TimeBankUse | None = None) -> None:
        """Schedule in order, without waiting for the timer service (batched with every other
        table's turns: `felt_table.ports.turn_clocks`)."""
        self.deps.clocks.add(self._request(deadline, delay, time_bank, CORRELATION.get()), self._silent)

    def _silent(self) -> None:
        self.on_silent()

    def _request(
        self, deadline: TableDeadline, delay: float, time_bank: TimeBankUse | None, correlation_id: str | None = None
    ) -> ScheduleDeadline:
        """`correlation_id`: the action's, for a request that travels in a batch (a request sent
        alone gets it from `felt_runtime.bus.call`)."""
        return ScheduleDeadline(
            **({"correlation_id": correlation_id} if correlation_id else {}),
            owner=self.deps.settings.timer_owner,
            key=f"{self.tid}:{deadline.key}",
            kind=deadline.timer_kind,
            delay_seconds=delay,
            payload=deadline.payload(),
            time_bank=time_bank,
        )

    async def schedule(
        self, deadline: TableDeadline, delay: float, time_bank: TimeBankUse | None = None
    ) -> datetime | None:
        """The deadline's due time, or None when the timer refused or is unavailable (logged).
        `time_bank` (turns only): the timer extends the turn once by the player's bank when the
        clock expires (`TimeBankStarted`) before firing."""
        try:
            res = await self.deps.ask(
                subjects.TIMER_SCHEDULE, self._request(deadline, delay, time_bank), DeadlineScheduled
            )
            return res.due_at
        except BusError as exc:
            if retryable(exc):
                self.on_silent()
            else:
                log.warning("timer refused: %s", exc.message)
            return None

    async def refill_banks(
        self, hand_id: str, player_ids: list[str], policy: TimeBankPolicy
    ) -> dict[str, float] | None:
        """Once per hand (message id `<hand_id>:bank`, so a retry refills nothing twice): each
        player's bank + `refill_seconds`, capped; the balances after it, or None if the timer failed."""
        try:
            res = await self.deps.ask(
                subjects.TIMER_REFILL_BANKS,
                RefillTimeBanks(message_id=f"{hand_id}:bank", table_id=self.tid, player_ids=player_ids, policy=policy),
                TimeBanks,
            )
            return res.seconds
        except BusError as exc:
            log.warning("time-bank refill refused/unavailable: %s", exc.message)
            return None

    async def cancel(self, key: str) -> None:
        try:
            await self.deps.ask(
                subjects.TIMER_CANCEL,
                CancelDeadline(owner=self.deps.settings.timer_owner, key=f"{self.tid}:{key}"),
                DeadlineCancelled,
            )
        except BusError:
            pass
