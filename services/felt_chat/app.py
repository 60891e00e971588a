"""Wiring: settings, the Redis store, the tables' event stream (read for seats) and the bus handlers."""

from __future__ import annotations

from felt_chat import handlers
from felt_chat.settings import ChatSettings
from felt_chat.store import ChatStore
from felt_runtime.service import ServiceContext, load_settings
from felt_runtime.streams import TABLE_SEATS, ensure


def build(ctx: ServiceContext) -> None:
    config = load_settings(ctx.name, ChatSettings)
    store = ChatStore(
        ctx.redis(),
        config.prefix,
        max_messages=config.max_messages,
        window_ms=max(1, round(config.window_seconds * 1000)),
        history_size=config.history_size,
        record_ttl_s=config.idempotency_ttl_seconds,
    )
    handlers.register(ctx.broker, store, config)

    @ctx.on_startup
    async def stream() -> None:  # the table may start later: its stream must exist to be read
        await ctx.broker.connect()
        await ensure(ctx.broker.config.connection_state.stream, TABLE_SEATS)
