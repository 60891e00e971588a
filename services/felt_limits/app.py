"""Wiring of the limits service: settings, clock, store, logic, handlers, startup hooks."""

from __future__ import annotations

from felt_runtime.streams import WALLET_EVENTS, ensure
from felt_limits.clock import Clock, FileClock, SystemClock
from felt_limits.handlers import register
from felt_limits.policy import Limits
from felt_limits.settings import LimitsSettings
from felt_contracts import subjects
from felt_runtime.db import migrate
from felt_runtime.metrics import LIMITS_BACKLOG
from felt_runtime.sampling import sample_every
from felt_runtime.service import ServiceContext, load_settings


def build(ctx: ServiceContext, clock: Clock | None = None) -> None:
    settings = load_settings(ctx.name, LimitsSettings)
    if clock is None:
        clock = FileClock(settings.clock_file) if settings.clock_file else SystemClock()
    engine = ctx.database()
    limits = Limits(engine, clock, settings)

    @ctx.on_startup
    async def schema() -> None:
        await migrate(engine, "felt_limits", "limits")

    @ctx.on_startup
    async def stream() -> None:
        await ctx.broker.connect()
        await ensure(ctx.broker.config.connection_state.stream, WALLET_EVENTS)

    @ctx.on_shutdown
    async def reader() -> None:
        limits.close()

    register(ctx.broker, limits)

    async def backlog() -> None:
        js = ctx.broker.config.connection_state.stream
        info = await js.consumer_info(subjects.WALLET_EVENTS_STREAM, settings.consumer)
        LIMITS_BACKLOG.set(info.num_pending or 0)

    sample_every(ctx, 15.0, backlog)
