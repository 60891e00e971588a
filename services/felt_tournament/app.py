"""Wiring of the tournament service: database, the director, its handlers, its retries and the play."""

from __future__ import annotations

import asyncio

from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext, load_settings
from felt_tournament.director import Director
from felt_tournament.handlers import register
from felt_tournament.floor import Floor
from felt_tournament.recurring import load_template
from felt_tournament.settings import TournamentSettings


def build(ctx: ServiceContext) -> Director:
    settings = load_settings(ctx.name, TournamentSettings)
    engine = ctx.database()
    template = load_template(settings.recurring, settings.recurring_file)
    director = Director(engine, ctx.broker, timeout=settings.call_timeout_seconds, recurring=template)
    floor = Floor(engine, ctx.broker, director, timeout=settings.call_timeout_seconds)
    register(ctx.broker, director, floor)
    tasks: list[asyncio.Task[None]] = []

    @ctx.on_startup
    async def start() -> None:
        await migrate(engine, "felt_tournament", "tournament")
        await ctx.broker.connect()
        await director.reopen()
        tasks.append(asyncio.create_task(director.keep_settling(settings.retry_seconds), name="tournament-settle"))
        tasks.append(asyncio.create_task(floor.keep_playing(settings.play_poll_seconds), name="tournament-play"))

    @ctx.on_shutdown
    async def stop() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    return director
