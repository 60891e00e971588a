"""All tables this process owns: their actors, created at start (after the restart policy)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.table import Admission, ParticipantKind, TableConfig, TableSummary
from felt_runtime.bus import BusError
from felt_table.server.actor import TableActor
from felt_table.ports.deps import Deps
from felt_table.commands import closing
from felt_table.model.lobby import check_config
from felt_table.model.table import Do
from felt_table.ports.registry import Claims


class Rooms:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.actors: dict[str, TableActor] = {}
        self.replica: Any = None  # replicas.Replica when tables are spread over replicas

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

    async def create(
        self, config: TableConfig, acquire: Callable[[str], Awaitable[bool]] | None = None
    ) -> TableSummary:
        """A new table (persisted); with replicas, `acquire` takes its lease before it opens here."""
        problem = check_config(config)
        if problem:
            raise BusError(ErrorCode.MALFORMED, problem.message, field=problem.field)
        if config.table_id in self.actors or (self.replica is not None and config.table_id in self.replica.known):
            raise BusError(ErrorCode.CONFLICT, "a table with this id exists", table_id=config.table_id)
        await self.deps.store.add_table(config.table_id, config.model_dump_json(), datetime.now(UTC))
        if acquire is not None:
            self.replica.known[config.table_id] = config
            if not await acquire(config.table_id):
                raise BusError(ErrorCode.CONFLICT, "a table with this id exists", table_id=config.table_id)
        return (await self.open(config, held=[])).summary()  # a new table id holds no claims

    async def close(self, table_id: str) -> TableSummary:
        """Operators: close a table (after the hand in progress, like a reached limit)."""
        actor = self.actors.get(table_id)
        if actor is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=table_id)
        await actor.submit(Do(closing.request))
        return actor.summary()

    def summaries(self, kind: ParticipantKind | None) -> list[TableSummary]:
        out = []
        for actor in self.actors.values():
            adm = actor.config.admission
            if (
                kind is not None
                and adm is not Admission.MIXED
                and ((adm is Admission.AGENTS_ONLY) != (kind is ParticipantKind.AGENT))
            ):
                continue
            out.append(actor.summary())
        return out

    async def stop(self) -> None:
        for actor in self.actors.values():
            await actor.stop()
