"""One actor per table: an asyncio task draining one ordered command queue.

Every command (join, ready/start, act, pre-action, leave, timeout, disconnect, reconnect,
sit-out/in, queries) goes through `TableActor.submit`, so nothing about a table ever runs
concurrently. The work itself lives in the modules named for it (seating, play, hands, views);
after each command the actor flushes the command's events (persist, then publish).

A command is applied at most once per `message_id`: the actor keeps the outcome of the last
`recent_commands` commands of the table (result or refusal), and a resend gets that outcome
without running again — even when its sender has the turn again by then. "No answer"
outcomes (`unavailable`, `internal`) are not kept: resending is how one retries them.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any

from felt_runtime.idempotency import fingerprint
from felt_contracts.deadlines import AbsentDeadline, ClosesAtDeadline, GraceDeadline, IntermissionDeadline, TurnDeadline
from felt_contracts.base import ErrorInfo
from felt_contracts.errors import ErrorCode
from felt_contracts.table import TableConfig, TableResult, TableSummary, TableView
from felt_runtime.bus import BusError
from felt_runtime.logs import CORRELATION
from felt_table.commands import closing, hands, host, play, recovery, seating, views
from felt_table.model import hosting
from felt_table.model.table import Do, Handler, Table
from felt_table.ports.deadlines import Fired
from felt_table.ports.deps import Deps
from felt_table.ports.registry import Claims
from felt_table.ports.retry import retryable

log = logging.getLogger("felt.table.actor")


async def fired(table: Table, command: Fired) -> TableResult:
    """A deadline, routed by what it was set for (each handler ignores a stale one)."""
    deadline = command.deadline
    match deadline:
        case TurnDeadline():
            return await play.turn_over(table, deadline)
        case GraceDeadline():
            return await seating.grace_over(table, deadline)
        case AbsentDeadline():
            return await seating.absent_over(table, deadline)
        case IntermissionDeadline():
            await hands.intermission_over(table, deadline.epoch)
        case ClosesAtDeadline():
            await closing.closes_at_came(table)
    return table.result()


async def do(table: Table, command: Do) -> TableResult:
    await command.fn(table)
    return table.result()


COMMANDS: dict[type, Handler] = {
    **seating.COMMANDS,
    **play.COMMANDS,
    **host.COMMANDS,
    **views.COMMANDS,
    Fired: fired,
    Do: do,
}


class Recent:
    """The outcomes of a table's last commands by `message_id` (bounded, oldest dropped first).

    Each is kept as JSON text without its table view. Text is invisible to the garbage
    collector: kept as models, the outcomes (256 per table) would be a large share of a busy table
    service's young generation, walked by every young collection; a view would be most of an
    outcome. A replay carries the table as it is
    at the replay, as the gateway's replays do, with the first outcome's status, seq, seat and
    buy-in; a kept refusal is raised anew, with no traceback of the failed handler."""

    def __init__(self, size: int) -> None:
        self.size = size
        #: message_id -> (fingerprint of the command, the outcome as JSON without its view,
        #: whether it had a view, whether it was a refusal)
        self.outcomes: OrderedDict[str, tuple[str, str, bool, bool]] = OrderedDict()

    def get(
        self, message_id: str, command: Any, current_view: Callable[[], TableView] | None = None
    ) -> TableResult | BusError | None:
        seen = self.outcomes.get(message_id)
        if seen is None:
            return None
        fp, text, had_view, refused = seen
        if fp != fingerprint(command, type(command).__name__):
            return BusError(
                ErrorCode.CONFLICT, "this message_id was used for another command", reason="message_id_reused"
            )
        if refused:
            return BusError.of(ErrorInfo.model_validate_json(text))
        outcome = TableResult.model_validate_json(text)
        if had_view and current_view is not None:
            return outcome.model_copy(update={"view": current_view(), "replayed": True})
        return outcome.model_copy(update={"replayed": True})

    def put(self, message_id: str, command: Any, outcome: TableResult | BusError) -> None:
        if isinstance(outcome, BusError):
            if retryable(outcome):
                return
            text = outcome.info().model_dump_json()
            kept = (text, False, True)
        else:
            kept = (outcome.model_dump_json(exclude={"view"}), outcome.view is not None, False)
        self.outcomes[message_id] = (fingerprint(command, type(command).__name__), *kept)
        while len(self.outcomes) > self.size:
            self.outcomes.popitem(last=False)


async def _timer_silent(table: Table) -> None:
    recovery.ping(table, "timer", hands.resumed)


class TableActor:
    def __init__(self, config: TableConfig, deps: Deps) -> None:
        self.table = Table(config, deps)
        self.config = config
        # each command carries the correlation id of the action it serves (the actor's task runs it)
        self.queue: asyncio.Queue[tuple[Any, str | None, asyncio.Future[Any], str | None]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.recent = Recent(deps.settings.recent_commands)
        self.table.post = self.submit_nowait
        self.table.timers.on_silent = lambda: self.submit_nowait(Do(_timer_silent))

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.config.table_id}")

    async def stop(self) -> None:
        tasks = [*([self.task] if self.task else []), *self.table.background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def reset(self, held: Claims | None = None) -> None:
        table = self.table
        await hosting.load(table)
        await seating.reset(table, held)
        table.hands_played = await table.deps.store.hands_played(table.tid)
        table.closed = (
            table.hosting.closed or closing.reason(table) is not None
        )  # closed while away: the reset cashed every seat out
        await closing.schedule(table)

    def summary(self) -> TableSummary:
        return views.summary(self.table)

    async def submit(self, command: Any, message_id: str | None = None) -> TableResult:
        """Run `command` in order; `message_id` (a participant's command): at most once."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((command, message_id, fut, CORRELATION.get()))
        return await fut

    def submit_nowait(self, command: Any) -> None:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.exception())
        self.queue.put_nowait((command, None, fut, CORRELATION.get()))

    async def _run(self) -> None:
        while True:
            command, message_id, fut, correlation = await self.queue.get()
            CORRELATION.set(correlation)
            if message_id is not None and type(command) in views.COMMANDS:
                message_id = None  # a query changes nothing: nothing to remember
            seen = (
                self.recent.get(
                    message_id, command, partial(views.view, self.table, getattr(command, "participant_id", None))
                )
                if message_id is not None
                else None
            )
            if seen is not None:
                if isinstance(seen, BusError):
                    fut.set_exception(seen)
                else:
                    fut.set_result(seen)
                continue
            self.table.command_id = message_id or ""
            self.table.note_credential(command)
            outcome: TableResult | BusError
            try:
                outcome = await COMMANDS[type(command)](self.table, command)
            except BusError as exc:
                outcome = exc
            except Exception as exc:  # logged; the sender gets `internal`
                log.exception("command failed", extra={"table_id": self.config.table_id})
                outcome = BusError(ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}")
            try:
                await self.table.events.flush()
            except Exception:  # logged; the queue goes on with the next command
                log.exception("flush failed")
            if message_id is not None:
                self.recent.put(message_id, command, outcome)
            if not fut.done():
                if isinstance(outcome, BusError):
                    fut.set_exception(outcome)
                else:
                    fut.set_result(outcome)
