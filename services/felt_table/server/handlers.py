"""Bus handlers: lobby, create-table, every table command (one wildcard subscription), timer fires.

Table commands are the hot path (every action of every player): each is answered by its own task
(`COMMAND_CONCURRENCY` in flight), so one slow table never holds up another. Per-table order is
arrival order: the tasks start in arrival order and reach `TableActor.submit`'s queue put
without suspending before it, and the table's actor runs its commands one at a time. Lobby,
create and close are rare (operators, the lobby page) and run one at a time: creating and closing
change the rooms across awaits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from faststream.nats import NatsMessage
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.base import Event
from felt_contracts.deadlines import TABLE_DEADLINE, TurnDeadline
from felt_contracts.errors import ErrorCode
from felt_contracts.table import CloseTable, CreateTable, ListTables, TableList, TableRequest, TableResult, TableSummary
from felt_contracts.timer import TimeBankStarted, TimerFired
from felt_runtime.bus import BusError, declare_contract, responder
from felt_table.ports.deadlines import BankStarted, Fired
from felt_table.server.rooms import Rooms

log = logging.getLogger("felt.table.handlers")
#: table commands in flight at once (each waits in its table's queue for its turn)
COMMAND_CONCURRENCY = 4096


def register(broker: Any, rooms: Rooms, timer_owner: str) -> None:
    q = subjects.TABLE_QUEUE

    replica = rooms.replica

    @responder(broker, subjects.TABLE_LIST, ListTables, queue=q, concurrency=1)
    async def list_tables(req: ListTables) -> TableList:
        """The lobby: every table with its configuration and occupancy."""
        if replica is not None:
            return await replica.lobby(req)
        return TableList(tables=rooms.summaries(req))

    @responder(broker, subjects.TABLE_CREATE, CreateTable, queue=q, concurrency=1)
    async def create_table(req: CreateTable) -> TableSummary:
        """Operators: create a table (persisted; reset like the others on restart)."""
        if replica is not None:
            return await replica.create(req)
        return await rooms.create(req)

    @responder(broker, subjects.TABLE_CLOSE, CloseTable, queue=q, concurrency=1)
    async def close_table(req: CloseTable) -> TableSummary:
        """Operators: close a table after the hand in progress (every seat cashed out, `table_closed`)."""
        if replica is not None and req.table_id not in rooms.actors:
            return await replica.close(req)
        return await rooms.close(req.table_id)

    async def run_here(req: TableRequest) -> TableResult:
        actor = rooms.actors.get(req.table_id)
        if actor is None:
            if replica is not None:
                raise BusError(ErrorCode.UNAVAILABLE, "the table is changing hands; retry", table_id=req.table_id)
            raise BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=req.table_id)
        if replica is not None:
            replica.leases.token(req.table_id)  # a lease that may have lapsed (woken from a pause): refuse
        return await actor.submit(req.command, req.message_id)

    @responder(broker, subjects.table_command("*"), TableRequest, queue=q, concurrency=COMMAND_CONCURRENCY)
    async def table_command(req: TableRequest) -> TableResult:
        """One command for one table, run in that table's ordered queue (by its owner)."""
        if replica is not None and req.table_id not in rooms.actors:
            return await replica.forward(req)
        return await run_here(req)

    if replica is not None:
        rid = replica.id

        @responder(
            broker,
            subjects.table_replica(rid, "cmd"),
            TableRequest,
            queue=f"{q}-{rid}",
            concurrency=COMMAND_CONCURRENCY,
        )
        async def owned_command(req: TableRequest) -> TableResult:
            """A command another replica forwarded to this one, the table's owner."""
            return await run_here(req)

        @responder(broker, subjects.table_replica(rid, "create"), CreateTable, queue=f"{q}-{rid}", concurrency=1)
        async def create_here(req: CreateTable) -> TableSummary:
            """A new table for this replica (the least loaded)."""
            return await replica.create_here(req)

        @responder(broker, subjects.table_replica(rid, "close"), CloseTable, queue=f"{q}-{rid}", concurrency=1)
        async def close_here(req: CloseTable) -> TableSummary:
            """Close a table this replica owns."""
            return await rooms.close(req.table_id)

        @responder(broker, subjects.table_replica(rid, "list"), ListTables, queue=f"{q}-{rid}", concurrency=1)
        async def list_here(req: ListTables) -> TableList:
            """This replica's tables, for the lobby another replica assembles."""
            return TableList(tables=rooms.summaries(req))

    def forward(
        subject: str, what: str, model: type[Event], title: str, command: Callable[[bytes], Fired | BankStarted]
    ) -> None:
        """Deliver a timer event into its table's queue (with replicas: the owner's); a
        malformed one is dropped."""
        declare_contract(subject, model)

        @broker.subscriber(subject, queue=q, title=title)
        async def on_timer_event(msg: NatsMessage) -> None:
            try:
                cmd = command(msg.body)
            except ValidationError:
                log.warning("malformed timer event ignored", extra={"subject": subject})
                return
            actor = rooms.actors.get(cmd.deadline.table_id)
            if actor is not None:
                actor.submit_nowait(cmd)
            elif replica is not None:
                await replica.forward_event(what, cmd.deadline.table_id, msg.body)

    def fired(body: bytes) -> Fired:
        ev = TimerFired.model_validate_json(body)
        return Fired(TABLE_DEADLINE.validate_python(ev.payload))

    def bank(body: bytes) -> BankStarted:
        ev = TimeBankStarted.model_validate_json(body)  # a time bank runs on turns only
        return BankStarted(TurnDeadline.model_validate(ev.payload), ev.bank_seconds, ev.turn_due_at, ev.due_at)

    forward(subjects.timer_fired(timer_owner), "fired", TimerFired, "timer fired -> table queue", fired)
    forward(subjects.timer_bank_started(timer_owner), "bank", TimeBankStarted, "time bank started -> table queue", bank)
    if replica is not None:  # forwarded by the replica that got them
        forward(subjects.table_replica(replica.id, "fired"), "fired", TimerFired, "timer fired (forwarded)", fired)
        forward(
            subjects.table_replica(replica.id, "bank"), "bank", TimeBankStarted, "time bank started (forwarded)", bank
        )
