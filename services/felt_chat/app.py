"""Wiring: settings, the Redis store and the bus handlers."""

from __future__ import annotations

from pydantic import ValidationError

from felt_chat import handlers
from felt_chat.settings import ChatSettings
from felt_chat.store import ChatStore
from felt_runtime.service import ConfigError, ServiceContext


def load_chat_settings() -> ChatSettings:
    try:
        return ChatSettings()
    except ValidationError as exc:
        err = exc.errors()[0]
        setting = "FELT_CHAT_" + str(err["loc"][0]).upper() if err["loc"] else "FELT_CHAT_*"
        raise ConfigError("chat", setting, err["msg"]) from None


def build(ctx: ServiceContext) -> None:
    config = load_chat_settings()
    store = ChatStore(
        ctx.redis(),
        config.prefix,
        max_messages=config.max_messages,
        window_ms=max(1, round(config.window_seconds * 1000)),
        history_size=config.history_size,
        record_ttl_s=config.idempotency_ttl_seconds,
    )
    handlers.register(ctx.broker, store, config)
