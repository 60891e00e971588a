"""Gauges a service samples on a clock (the wallet's oldest open hand, limits' backlog): a task
started with the service and cancelled when it stops; a failed sample is logged and tried again
at the next tick (the gauge keeps its last value)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from felt_runtime.service import ServiceContext

log = logging.getLogger("felt.runtime.sampling")


def sample_every(ctx: ServiceContext, seconds: float, sample: Callable[[], Awaitable[None]]) -> None:
    """Run `sample()` every `seconds` while the service runs."""
    tasks: list[asyncio.Task[None]] = []

    async def loop() -> None:
        while True:
            await asyncio.sleep(seconds)  # first once the service has started its subscriptions
            try:
                await sample()
            except Exception as exc:  # noqa: BLE001 - a metric never stops the service
                log.warning("sampling %s failed: %s: %s", sample.__name__, type(exc).__name__, exc)

    @ctx.on_startup
    async def start() -> None:
        tasks.append(asyncio.create_task(loop(), name=f"sample-{sample.__name__}"))

    @ctx.on_shutdown
    async def stop() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
