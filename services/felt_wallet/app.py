"""Wiring: database, migrations, JetStream stream, the writer task, the outbox relay, handlers."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext, load_settings
from felt_runtime.streams import WALLET_EVENTS, declare
from felt_wallet.handlers import register
from felt_wallet.outbox import relay
from felt_wallet.settings import WalletSettings
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

    return writer
