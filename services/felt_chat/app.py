"""Wiring: settings, the Redis store and the bus handlers."""

from __future__ import annotations

from felt_chat import handlers
from felt_chat.settings import ChatSettings
from felt_chat.store import ChatStore
from felt_runtime.service import ServiceContext, load_settings


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
