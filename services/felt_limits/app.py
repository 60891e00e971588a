"""Wiring of the limits service: settings, clock, store, logic, handlers, startup hooks."""

from __future__ import annotations

from pydantic import ValidationError

from felt_limits.clock import Clock, FileClock, SystemClock
from felt_limits.events import ensure_stream
from felt_limits.handlers import register
from felt_limits.policy import Limits
from felt_limits.settings import LimitsSettings
from felt_runtime.db import migrate
from felt_runtime.service import ConfigError, ServiceContext


def build(ctx: ServiceContext, clock: Clock | None = None) -> None:
    try:
        settings = LimitsSettings()
    except ValidationError as exc:
        err = exc.errors()[0]
        setting = "FELT_LIMITS_" + str(err["loc"][0]).upper() if err["loc"] else "FELT_LIMITS_*"
        raise ConfigError(ctx.name, setting, err["msg"]) from None
    if clock is None:
        clock = FileClock(settings.clock_file) if settings.clock_file else SystemClock()
    engine = ctx.database()
    limits = Limits(engine, clock, settings)

    @ctx.on_startup
    async def schema() -> None:
        await migrate(engine, "felt_limits", "limits")

    @ctx.on_startup
    async def stream() -> None:
        await ensure_stream(ctx.settings.nats_url)

    register(ctx.broker, limits)
