"""Wiring: settings, the Redis store, bus handlers and the firing loop."""

from __future__ import annotations

from felt_runtime.service import ServiceContext, load_settings
from felt_timer import handlers
from felt_timer.settings import TimerSettings
from felt_timer.firing import Firer
from felt_timer.store import TimerStore


def build(ctx: ServiceContext) -> None:
    config = load_settings(ctx.name, TimerSettings)
    firer: Firer | None = None

    # registered before ctx.redis() so the loop stops before the Redis client is closed
    @ctx.on_shutdown
    async def stop_firing() -> None:
        if firer is not None:
            await firer.stop()

    store = TimerStore(
        ctx.redis(), config.prefix, bank_ttl_s=config.bank_ttl_seconds, idempotency_ttl_s=config.idempotency_ttl_seconds
    )
    handlers.register(ctx.broker, store)

    @ctx.on_startup
    async def start_firing() -> None:
        nonlocal firer
        firer = Firer(store, ctx.broker, poll=config.poll_seconds, batch=config.batch, lease=config.lease_seconds)
        await firer.start()
