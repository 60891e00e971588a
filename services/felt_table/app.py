"""Wiring: database + migrations, the event stream, the tables (restart policy first), handlers."""

from __future__ import annotations

import logging

from nats.js.api import StreamConfig
from nats.js.errors import BadRequestError

from felt_contracts import subjects
from felt_contracts.table import TableConfig
from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext, load_settings
from felt_table.deps import Deps, Registry
from felt_table.handlers import register
from felt_table.lobby import load_tables
from felt_table.rooms import Rooms
from felt_table.settings import TableSettings
from felt_table.store import Store

log = logging.getLogger("felt.table")


def build(ctx: ServiceContext, table: TableSettings | None = None) -> Rooms:
    settings = table or load_settings(ctx.name, TableSettings)
    engine = ctx.database()
    store = Store(engine)
    rooms = Rooms(Deps(ctx.broker, store, settings, Registry({})))
    register(ctx.broker, rooms, settings.timer_owner)

    @ctx.on_startup
    async def start() -> None:
        await migrate(engine, "felt_table", "table")
        await ctx.broker.connect()
        js = ctx.broker.config.connection_state.stream
        config = StreamConfig(name=subjects.TABLE_EVENTS_STREAM, subjects=["felt.evt.table.>"],
                              duplicate_window=120.0, max_age=7 * 86400.0)
        try:
            await js.add_stream(config)
        except BadRequestError:
            await js.update_stream(config)
        configs = {c.table_id: c for c in load_tables(settings.default_tables, settings.tables_file)}
        for raw in await store.created_tables():
            c = TableConfig.model_validate_json(raw)
            configs.setdefault(c.table_id, c)
        for c in configs.values():  # restart policy: every open hand cancelled, seats cleared
            await rooms.open(c)
        log.info("tables open", extra={"tables": len(rooms.actors)})

    @ctx.on_shutdown
    async def stop() -> None:
        await rooms.stop()

    return rooms
