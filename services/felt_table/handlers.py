"""Bus handlers: lobby, create-table, every table command (one wildcard subscription), timer fires.

Table commands are the hot path (every action of every player): a fast responder (plain
nats-py subscription, opened once every table is open) answers each with its own task, so one
slow table never holds up another (a FastStream subscriber ran one message at a time for all
tables, with two access-log lines each). Per-table order is arrival order: the tasks start in
arrival order and reach `TableActor.submit`'s queue put without suspending before it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from faststream.nats import NatsMessage
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import CloseTable, CreateTable, ListTables, TableList, TableRequest, TableResult, TableSummary
from felt_contracts.timer import TimeBankStarted, TimerFired
from felt_runtime.bus import BusError, declare_contract, responder
from felt_table.deadlines import BankStarted, Fired
from felt_table.rooms import Rooms

log = logging.getLogger("felt.table.handlers")


def register(broker: Any, rooms: Rooms, timer_owner: str) -> None:
    q = subjects.TABLE_QUEUE

    @responder(broker, subjects.TABLE_LIST, ListTables, queue=q)
    async def list_tables(req: ListTables) -> TableList:
        """The lobby: every table with its configuration and occupancy."""
        return TableList(tables=tuple(rooms.summaries(req.kind)))

    @responder(broker, subjects.TABLE_CREATE, CreateTable, queue=q)
    async def create_table(req: CreateTable) -> TableSummary:
        """Operators: create a table (persisted; reset like the others on restart)."""
        return await rooms.create(req.config)

    @responder(broker, subjects.TABLE_CLOSE, CloseTable, queue=q)
    async def close_table(req: CloseTable) -> TableSummary:
        """Operators: close a table after the hand in progress (every seat cashed out, `table_closed`)."""
        return await rooms.close(req.table_id)

    @responder(broker, subjects.table_command("*"), TableRequest, queue=q, fast=True, max_in_flight=4096)
    async def table_command(req: TableRequest) -> TableResult:
        """One command for one table, run in that table's ordered queue."""
        actor = rooms.actors.get(req.table_id)
        if actor is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=req.table_id)
        return await actor.submit(req.command, req.message_id)

    def forward(subject: str, model: Any, title: str, command: Callable[[Any], Any]) -> None:
        """Deliver a timer event into its table's queue; a malformed one is dropped."""
        declare_contract(subject, model)

        @broker.subscriber(subject, queue=q, title=title)
        async def on_timer_event(msg: NatsMessage) -> None:
            try:
                ev = model.model_validate_json(msg.body)
            except ValidationError:
                log.warning("malformed timer event ignored", extra={"subject": subject})
                return
            actor = rooms.actors.get(str(ev.payload.get("table_id")))
            if actor is not None:
                actor.submit_nowait(command(ev))

    forward(subjects.timer_fired(timer_owner), TimerFired, "timer fired -> table queue",
            lambda ev: Fired(dict(ev.payload)))
    forward(subjects.timer_bank_started(timer_owner), TimeBankStarted, "time bank started -> table queue",
            lambda ev: BankStarted(dict(ev.payload), ev.bank_seconds, ev.turn_due_at, ev.due_at))
