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
from collections.abc import Awaitable, Callable
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.table import TableConfig, TableResult, TableSummary
from felt_runtime.bus import BusError
from felt_table import closing, hands, play, recovery, seating, views
from felt_table.deadlines import Fired
from felt_table.recovery import Do
from felt_table.deps import Deps
from felt_table.table import Table

log = logging.getLogger("felt.table.actor")

Handler = Callable[[Table, Any], Awaitable[TableResult]]


async def fired(t: Table, f: Fired) -> TableResult:
    """A deadline, routed by what it was set for (each handler ignores a stale one)."""
    k = f.payload.get("k")
    if k == "turn":
        return await play.turn_over(t, f.payload)
    if k == "grace":
        return await seating.grace_over(t, f.payload)
    if k == "closes_at":
        await closing.closes_at_came(t)
        return t.result()
    if k == "absent":
        return await seating.absent_over(t, f.payload)
    if k == "intermission":
        await hands.intermission_over(t, int(f.payload.get("e", -1)))
        return t.result()
    return t.result("ignored")


async def do(t: Table, d: Do) -> TableResult:
    await d.fn(t)
    return t.result()


COMMANDS: dict[type, Handler] = {**seating.COMMANDS, **play.COMMANDS, **views.COMMANDS, Fired: fired, Do: do}


class Recent:
    """The outcomes of a table's last commands by `message_id` (bounded, oldest dropped first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.outcomes: OrderedDict[str, tuple[str, TableResult | BusError]] = OrderedDict()

    def get(self, message_id: str, command: Any) -> TableResult | BusError | None:
        seen = self.outcomes.get(message_id)
        if seen is None:
            return None
        if seen[0] != _fingerprint(command):
            return BusError(ErrorCode.CONFLICT, "this message_id was used for another command", reason="message_id_reused")
        return seen[1]

    def put(self, message_id: str, command: Any, outcome: TableResult | BusError) -> None:
        if isinstance(outcome, BusError) and recovery.retryable(outcome):
            return
        self.outcomes[message_id] = (_fingerprint(command), outcome)
        while len(self.outcomes) > self.size:
            self.outcomes.popitem(last=False)


def _fingerprint(command: Any) -> str:
    return f"{type(command).__name__}:{command.model_dump_json()}"


async def _timer_silent(t: Table) -> None:
    recovery.ping(t, "timer", hands.resumed)


class TableActor:
    def __init__(self, config: TableConfig, deps: Deps) -> None:
        self.table = Table(config, deps)
        self.config = config
        self.queue: asyncio.Queue[tuple[Any, str | None, asyncio.Future[Any]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.recent = Recent(deps.settings.recent_commands)
        self.table.post = self.submit_nowait
        self.table.timers.on_silent = lambda: self.submit_nowait(Do(_timer_silent))

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.config.table_id}")
        self.table.timers.start()

    async def stop(self) -> None:
        tasks = [*([self.task] if self.task else []), *self.table.background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.table.timers.stop()

    async def reset(self) -> None:
        t = self.table
        await seating.reset(t)
        t.hands_played = await t.deps.store.hands_played(t.tid)
        t.closed = closing.reason(t) is not None  # closed while away: the reset cashed every seat out
        await closing.schedule(t)

    def summary(self) -> TableSummary:
        return views.summary(self.table)

    async def submit(self, command: Any, message_id: str | None = None) -> TableResult:
        """Run `command` in order; `message_id` (a participant's command): at most once."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((command, message_id, fut))
        return await fut

    def submit_nowait(self, command: Any) -> None:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.exception())
        self.queue.put_nowait((command, None, fut))

    async def _run(self) -> None:
        while True:
            command, message_id, fut = await self.queue.get()
            if message_id is not None and type(command) in views.COMMANDS:
                message_id = None  # a query changes nothing: nothing to remember
            seen = self.recent.get(message_id, command) if message_id is not None else None
            if seen is not None:
                if isinstance(seen, BusError):
                    fut.set_exception(seen)
                else:
                    fut.set_result(seen)
                continue
            self.table.command_id = message_id or ""
            try:
                result = await COMMANDS[type(command)](self.table, command)
                err = None
            except BusError as exc:
                result, err = None, exc
            except Exception as exc:  # noqa: BLE001
                log.exception("command failed", extra={"table_id": self.config.table_id})
                result, err = None, BusError(ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}")
            try:
                await self.table.events.flush()
            except Exception:  # noqa: BLE001
                log.exception("flush failed")
            if message_id is not None:
                self.recent.put(message_id, command, err if err is not None else result)
            if not fut.done():
                if err is not None:
                    fut.set_exception(err)
                else:
                    fut.set_result(result)
