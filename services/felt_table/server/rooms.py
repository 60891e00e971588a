"""All tables this process owns: their actors, created at start (after the restart policy); the
bound on each owner's open hosted tables; hosted tables nobody sits at closing by themselves."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.table import (
    Admission,
    CreateTable,
    ListTables,
    ParticipantKind,
    TableConfig,
    TableSummary,
    Visibility,
)
from felt_runtime.bus import BusError
from felt_table.server.actor import TableActor
from felt_table.ports.deps import Deps
from felt_table.commands import closing
from felt_table.model.host_state import Hosting
from felt_table.model.lobby import check_config
from felt_table.model.table import Do, Table, now
from felt_table.ports.registry import Claims


class Rooms:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.actors: dict[str, TableActor] = {}
        self.replica: Any = None  # replicas.Replica when tables are spread over replicas
        self.idle_task: asyncio.Task[None] | None = None

    async def open(self, config: TableConfig, held: Claims | None = None) -> TableActor:
        """Open a table under the restart policy (`held`: its session claims, if already read)."""
        tid = config.table_id
        deps = replace(
            self.deps,
            last_seq=await self.deps.store.last_seq(tid),
            lease=(lambda: self.replica.leases.token(tid)) if self.replica is not None else None,
        )
        actor = TableActor(config, deps)
        await actor.reset(held)
        actor.start()
        self.actors[config.table_id] = actor
        return actor

    async def create(self, req: CreateTable, acquire: Callable[[str], Awaitable[bool]] | None = None) -> TableSummary:
        """A new table (persisted); with replicas, `acquire` takes its lease before it opens here."""
        config = req.config
        problem = check_config(config)
        if problem:
            raise BusError(ErrorCode.MALFORMED, problem.message, field=problem.field)
        if config.visibility is Visibility.PRIVATE and req.invite_hash is None:
            raise BusError(ErrorCode.MALFORMED, "a private table needs an invite", field="invite_hash")
        if config.table_id in self.actors or (self.replica is not None and config.table_id in self.replica.known):
            raise BusError(ErrorCode.CONFLICT, "a table with this id exists", table_id=config.table_id)
        host_state = None
        if config.host_owner is not None:
            await self._within_bound(config.host_owner)
            host_state = Hosting(invite_hash=req.invite_hash).model_dump_json()
        await self.deps.store.add_table(config.table_id, config.model_dump_json(), datetime.now(UTC), host_state)
        if acquire is not None:
            self.replica.known[config.table_id] = config
            if not await acquire(config.table_id):
                raise BusError(ErrorCode.CONFLICT, "a table with this id exists", table_id=config.table_id)
        return (await self.open(config, held=[])).summary()  # a new table id holds no claims

    async def _within_bound(self, owner: str) -> None:
        """An owner hosts at most `max_hosted_tables` open tables at once (across replicas: the store)."""
        limit = self.deps.settings.max_hosted_tables
        hosted = sum(
            1
            for raw in await self.deps.store.hosted_configs()
            if TableConfig.model_validate_json(raw).host_owner == owner
        )
        if hosted >= limit:
            raise BusError(
                ErrorCode.TOO_MANY_TABLES, f"you host {hosted} open tables; at most {limit} at once", limit=limit
            )

    async def close(self, table_id: str) -> TableSummary:
        """Operators: close a table (after the hand in progress, like a reached limit)."""
        actor = self.actors.get(table_id)
        if actor is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=table_id)
        await actor.submit(Do(closing.request))
        return actor.summary()

    def summaries(self, req: ListTables) -> list[TableSummary]:
        """The lobby: public tables (and not closed hosted ones); or the table an invite opens, or a host's."""
        kind = req.kind
        out = []
        for actor in self.actors.values():
            table = actor.table
            if req.invite_hash is not None or req.host_id is not None:
                if not table.closed and (
                    req.invite_hash == table.hosting.invite_hash
                    if req.invite_hash
                    else req.host_id == table.config.host_id
                ):
                    out.append(actor.summary())
                continue
            if table.config.visibility is Visibility.PRIVATE or (table.closed and table.config.host_id is not None):
                continue
            adm = actor.config.admission
            if (
                kind is not None
                and adm is not Admission.MIXED
                and ((adm is Admission.AGENTS_ONLY) != (kind is ParticipantKind.AGENT))
            ):
                continue
            out.append(actor.summary())
        return out

    def start_idle_watch(self) -> None:
        self.idle_task = asyncio.create_task(self._idle_watch(), name="tables-idle-watch")

    async def _idle_watch(self) -> None:
        """Hosted tables nobody sat at for `idle_close_seconds` close (checked a few times per period)."""
        idle = self.deps.settings.idle_close_seconds
        while True:
            await asyncio.sleep(min(30.0, idle / 4))
            for actor in list(self.actors.values()):
                table = actor.table
                if _idle(table, idle):
                    actor.submit_nowait(Do(_close_idle))

    async def stop(self) -> None:
        if self.idle_task is not None:
            self.idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.idle_task
        for actor in self.actors.values():
            await actor.stop()


def _idle(table: Table, idle: float) -> bool:
    """A hosted table nobody sits at (or asks to) since `idle` seconds (notes when someone does)."""
    if table.config.host_id is None or table.closed or table.close_requested:
        return False
    if table.seats or table.hosting.pending:
        table.occupied_at = now()
        return False
    return (now() - table.occupied_at).total_seconds() >= idle


async def _close_idle(table: Table) -> None:
    if _idle(table, table.deps.settings.idle_close_seconds):
        await closing.request(table, "idle")
