"""One actor per table: an asyncio task draining one ordered command queue.

Every command (join, ready/start, act, pre-action, leave, timeout, disconnect, reconnect,
sit-out/in, queries) goes through `TableActor.submit`, so nothing about a table ever runs
concurrently. The work itself lives in the modules named for it (seating, play, hands, views);
after each command the actor flushes the command's events (persist, then publish).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.table import TableConfig, TableResult, TableSummary
from felt_runtime.bus import BusError
from felt_table import hands, play, seating, views
from felt_table.deadlines import Fired
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
    if k == "intermission":
        await hands.intermission_over(t, int(f.payload.get("e", -1)))
        return t.result()
    return t.result("ignored")


COMMANDS: dict[type, Handler] = {**seating.COMMANDS, **play.COMMANDS, **views.COMMANDS, Fired: fired}


class TableActor:
    def __init__(self, config: TableConfig, deps: Deps) -> None:
        self.table = Table(config, deps)
        self.config = config
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.config.table_id}")
        self.table.timers.start()

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await self.table.timers.stop()

    async def reset(self) -> None:
        await seating.reset(self.table)

    def summary(self) -> TableSummary:
        return views.summary(self.table)

    async def submit(self, command: Any) -> TableResult:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((command, fut))
        return await fut

    def submit_nowait(self, command: Any) -> None:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.exception())
        self.queue.put_nowait((command, fut))

    async def _run(self) -> None:
        while True:
            command, fut = await self.queue.get()
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
            if not fut.done():
                if err is not None:
                    fut.set_exception(err)
                else:
                    fut.set_result(result)
