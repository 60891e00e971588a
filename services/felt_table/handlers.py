"""Bus handlers: lobby, create-table, every table command (one wildcard subscription), timer fires.

Table commands are the hot path (every action of every player), so at startup `CommandPath`
serves that subject on a plain nats-py queue subscription with the same validation and error
replies (`felt_runtime.bus.dispatch`). It stays registered with `responder` for the contract
registry and the AsyncAPI document; FastStream's per-message machinery (a task group, a
thread-pool hop, middlewares, two access-log lines at INFO) cost more CPU than the step itself.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from faststream.nats import NatsMessage
from nats.aio.msg import Msg
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import CreateTable, ListTables, TableList, TableRequest, TableResult, TableSummary
from felt_contracts.timer import TimerFired
from felt_runtime.bus import BusError, declare_contract, dispatch, responder
from felt_table.deadlines import Fired
from felt_table.rooms import Rooms

log = logging.getLogger("felt.table.handlers")
_JSON = {"content-type": "application/json"}


class CommandPath:
    """`table_command("*")` on a raw subscription; each message answered by its own task, so one
    slow table never holds up another (FastStream's subscriber ran one message at a time for
    all tables). Per-table order is still arrival order: tasks start in arrival order and reach
    `TableActor.submit`'s queue put without suspending before it."""

    def __init__(self, broker: Any, handler: Any) -> None:
        self.broker, self.handler = broker, handler
        self.sub: Any = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """After `broker.connect()`, before `broker.start()`; if FastStream's internals differ,
        FastStream keeps serving the subject."""
        subject = subjects.table_command("*")
        registered = getattr(self.broker, "_subscribers", None)
        ours = [x for x in registered or () if getattr(x, "_subject", None) == subject]
        if len(ours) != 1:
            log.warning("FastStream internals changed; table commands stay on FastStream")
            return
        registered.discard(ours[0])
        self.sub = await self.broker.connection.subscribe(subject, queue=subjects.TABLE_QUEUE, cb=self._on_msg,
                                                          pending_msgs_limit=-1, pending_bytes_limit=-1)

    async def _on_msg(self, msg: Msg) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(msg))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _serve(self, msg: Msg) -> None:
        try:
            reply = await dispatch(self.handler, TableRequest, msg.data)
            if msg.reply:
                await self.broker.connection.publish(msg.reply, reply.model_dump_json().encode(), headers=_JSON)
        except Exception:  # noqa: BLE001 - the caller times out and may retry
            log.exception("reply failed")

    async def stop(self) -> None:
        if self.sub is not None:
            try:
                await self.sub.unsubscribe()
            except Exception:  # noqa: BLE001 - connection already closed
                pass
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=5)


def register(broker: Any, rooms: Rooms, timer_owner: str) -> CommandPath:
    q = subjects.TABLE_QUEUE

    @responder(broker, subjects.TABLE_LIST, ListTables, queue=q)
    async def list_tables(req: ListTables) -> TableList:
        """The lobby: every table with its configuration and occupancy."""
        return TableList(tables=tuple(rooms.summaries(req.kind)))

    @responder(broker, subjects.TABLE_CREATE, CreateTable, queue=q)
    async def create_table(req: CreateTable) -> TableSummary:
        """Operators: create a table (persisted; reset like the others on restart)."""
        return await rooms.create(req.config)

    @responder(broker, subjects.table_command("*"), TableRequest, queue=q)
    async def table_command(req: TableRequest) -> TableResult:
        """One command for one table, run in that table's ordered queue."""
        actor = rooms.actors.get(req.table_id)
        if actor is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=req.table_id)
        return await actor.submit(req.command)

    path = CommandPath(broker, table_command)

    declare_contract(subjects.timer_fired(timer_owner), TimerFired)

    @broker.subscriber(subjects.timer_fired(timer_owner), queue=q, title="timer fired -> table queue")
    async def fired(msg: NatsMessage) -> None:
        try:
            ev = TimerFired.model_validate_json(msg.body)
        except ValidationError:
            log.warning("malformed timer event ignored")
            return
        actor = rooms.actors.get(str(ev.payload.get("table_id")))
        if actor is not None:
            actor.submit_nowait(Fired(dict(ev.payload)))

    return path
