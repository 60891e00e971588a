"""Wiring: database, migrations, JetStream stream, the writer task, the outbox relay, handlers."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime

import sqlalchemy as sa

from felt_runtime.db import migrate
from felt_runtime.metrics import OLDEST_OPEN_HAND
from felt_runtime.sampling import sample_every
from felt_runtime.service import ServiceContext, load_settings
from felt_runtime.streams import WALLET_EVENTS, declare
from felt_wallet.handlers import register
from felt_wallet.outbox import relay
from felt_wallet.settings import WalletSettings
from felt_wallet.store import hands
from felt_wallet.writer import Writer


def build(ctx: ServiceContext, wallet: WalletSettings | None = None) -> Writer:
    settings = wallet or load_settings(ctx.name, WalletSettings)
    engine = ctx.database()
    grants = settings.grants()
    writer = Writer(engine, grants=grants, group_commit=settings.group_commit, batch_max=settings.batch_max)
    register(ctx.broker, engine, writer, grants)  # served once every startup hook has run
    tasks: list[asyncio.Task[None]] = []

    @ctx.on_startup
    async def start() -> None:
        await migrate(engine, "felt_wallet", "wallet")
        await ctx.broker.connect()
        js = ctx.broker.config.connection_state.stream
        await declare(js, replace(WALLET_EVENTS, max_age=settings.events_max_age_seconds))
        writer.start()
        tasks.append(asyncio.create_task(relay(engine, js, writer), name="wallet-outbox"))

    @ctx.on_shutdown
    async def stop() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await writer.stop()

    async def oldest_open_hand() -> None:
        async with engine.connect() as conn:
            opened = await conn.scalar(sa.select(sa.func.min(hands.c.opened_at)).where(hands.c.status == "open"))
        if opened is not None and opened.tzinfo is None:  # SQLite keeps no zone: stored as UTC
            opened = opened.replace(tzinfo=UTC)
        OLDEST_OPEN_HAND.set((datetime.now(UTC) - opened).total_seconds() if opened else 0)

    sample_every(ctx, 15.0, oldest_open_hand)
    return writer
