"""Wiring of the tournament service: database, the director, its handlers and its retries."""

from __future__ import annotations

import asyncio

from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext, load_settings
from felt_tournament.director import Director
from felt_tournament.handlers import register
from felt_tournament.settings import TournamentSettings


def build(ctx: ServiceContext) -> Director:
    settings = load_settings(ctx.name, TournamentSettings)
    engine = ctx.database()
    director = Director(engine, ctx.broker, timeout=settings.call_timeout_seconds)
    register(ctx.broker, director)
    tasks: list[asyncio.Task[None]] = []

    @ctx.on_startup
    async def start() -> None:
        await migrate(engine, "felt_tournament", "tournament")
        await ctx.broker.connect()
        tasks.append(asyncio.create_task(director.keep_settling(settings.retry_seconds), name="tournament-settle"))

    @ctx.on_shutdown
    async def stop() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    return director
