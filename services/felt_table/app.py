"""Wiring: database + migrations, the event stream, the tables (restart policy first), handlers."""

from __future__ import annotations

import logging
from dataclasses import replace

from felt_contracts import subjects
from felt_contracts.table import TableConfig
from felt_runtime import catalog
from felt_runtime.bus import call
from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext, load_settings
from felt_runtime.streams import TABLE_SEATS, declare, retire
from felt_table.ports.deps import Deps
from felt_table.server import matches
from felt_table.server.handlers import register
from felt_table.model.lobby import load_tables
from felt_table.ports.registry import SessionRegistry
from felt_table.server.replicas import Replica, default_replica_id
from felt_table.server.rooms import Rooms
from felt_table.settings import TableSettings
from felt_table.ports.store import Store
from felt_table.ports.turn_clocks import TurnClocks

log = logging.getLogger("felt.table")


def build(ctx: ServiceContext, table: TableSettings | None = None) -> Rooms:
    settings = table or load_settings(ctx.name, TableSettings)
    engine = ctx.database()
    store = Store(engine)
    registry = SessionRegistry()
    clocks = TurnClocks(
        lambda subject, req, model: call(ctx.broker, subject, req, model, timeout=settings.call_timeout),
        settings.turn_clock_batch_seconds,
    )
    rooms = Rooms(Deps(ctx.broker, store, settings, registry, clocks))
    if settings.lease_seconds > 0:
        port = ctx.settings.http_port or ctx.settings.default_port(catalog.default_port(ctx.name))
        rooms.replica = Replica(
            rooms,
            ctx.broker,
            settings.replica_id or default_replica_id(port),
            settings.lease_seconds,
            settings.kv_replicas,
        )
    register(ctx.broker, rooms, settings.timer_owner)
    matches.register(ctx.broker, rooms)

    async def known() -> dict[str, TableConfig]:
        """Every table of the room: the configured ones and those operators created."""
        configs = {config.table_id: config for config in load_tables(settings.default_tables, settings.tables_file)}
        for raw in await store.created_tables():
            config = TableConfig.model_validate_json(raw)
            configs.setdefault(config.table_id, config)
        return configs

    @ctx.on_startup
    async def start() -> None:
        await migrate(engine, "felt_table", "table")
        await ctx.broker.connect()
        js = ctx.broker.config.connection_state.stream
        await declare(js, replace(TABLE_SEATS, max_age=settings.events_max_age_seconds))
        await retire(js, subjects.LEGACY_TABLE_EVENTS_STREAM)
        await registry.open(js, settings.kv_replicas)
        if rooms.replica is not None:  # this replica's share; the rest go to the others
            rooms.replica.load_known = known
            await rooms.replica.open(js)
            await rooms.replica.start()
        else:
            claims = await registry.claims()  # read once for every table, not once per table
            for config in (await known()).values():  # restart policy: every open hand cancelled, seats cleared
                await rooms.open(config, claims.get(config.table_id, []))
        rooms.start_idle_watch()
        log.info("tables open", extra={"tables": len(rooms.actors)})

    @ctx.on_shutdown
    async def stop() -> None:
        if rooms.replica is not None:
            await rooms.replica.stop()
        await rooms.stop()
        await clocks.stop()
        store.close()

    return rooms
