"""Assembly: settings, the broker (started and stopped in FastAPI's lifespan), the database
(identity, migrated at startup), Redis (idempotency), health over HTTP and on the bus, the
REST routers and the WebSocket."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from felt_contracts import subjects
from felt_contracts.health import HealthRequest, HealthStatus
from felt_gateway import accounts, errors, poker, ws
from felt_gateway.clients import Bus
from felt_gateway.hub import Hub
from felt_gateway.idempotency import Idempotency
from felt_gateway.identity import Identity
from felt_gateway.chat_members import ChatMembers
from felt_gateway.presence import Presence
from felt_gateway.settings import GatewaySettings
from felt_runtime.bus import make_broker, responder
from felt_runtime.db import migrate
from felt_runtime.service import VERSION, ServiceContext, load_settings
from felt_runtime.settings import Settings

log = logging.getLogger("felt.gateway")

#: the browser client (package data): index.html, ES modules, CSS; no build step
STATIC = Path(__file__).parent / "static"

DESCRIPTION = """The agent REST API of Felt (seed 004). Authenticate with
`Authorization: Bearer <token>` (an owner's login token: acts as the owner's HUMAN participant)
or `Authorization: Bearer <api key>` / `X-API-Key` (an agent). Errors are
`{code, message, details}`. People use the WebSocket `/ws` (docs/protocol.md)."""


def make(settings: Settings, gw: GatewaySettings | None = None) -> tuple[FastAPI, ServiceContext]:
    gw = gw or load_settings("gateway", GatewaySettings)
    broker = make_broker(settings.nats_url, "gateway")
    ctx = ServiceContext(name="gateway", settings=settings, broker=broker)
    engine = ctx.database()
    redis = ctx.redis()
    bus = Bus(broker, settings.request_timeout)

    async def status() -> HealthStatus:
        checks = {"nats": "ok" if await broker.ping(2) else "unreachable", **await ctx.check_all()}
        return HealthStatus(service="gateway", status="ok" if all(v == "ok" for v in checks.values()) else "degraded",
                            version=VERSION, checks=checks)

    @responder(broker, subjects.health("gateway"), HealthRequest, queue="felt-gateway-health")
    async def health(_: HealthRequest) -> HealthStatus:
        """Report the gateway's health and its dependencies'."""
        return await status()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await migrate(engine, "felt_gateway", "gateway")
        for hook in ctx.startup:
            await hook()
        await broker.start()
        try:
            yield
        finally:
            for conn in list(app.state.connections):
                await conn.close(1001, "gateway shutting down")
            await broker.stop()
            for hook in ctx.shutdown:
                await hook()

    app = FastAPI(title="Felt gateway", version=VERSION, description=DESCRIPTION, lifespan=lifespan)
    app.state.gw = gw
    app.state.engine = engine
    app.state.bus = bus
    app.state.hub = Hub(broker, linger=gw.feed_linger_seconds)
    app.state.presence = Presence(bus)
    app.state.chat_members = ChatMembers(bus)
    app.state.identity = Identity(engine, broker, token_ttl=gw.token_ttl_seconds, timeout=settings.request_timeout,
                                  cache_seconds=gw.auth_cache_seconds)
    app.state.idempotency = Idempotency(redis, gw.idempotency_ttl_seconds)
    app.state.connections = set()
    app.state.hand_tables = {}
    errors.install(app)
    app.include_router(accounts.router)
    app.include_router(poker.router)
    app.add_api_websocket_route("/ws", ws.endpoint)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> JSONResponse:
        alive = await broker.ping(2)
        return JSONResponse({"service": "gateway", "status": "ok" if alive else "nats unreachable"}, status_code=200 if alive else 503)

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        current = await status()
        return JSONResponse(current.model_dump(), status_code=200 if current.status == "ok" else 503)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        """The browser client: people play here."""
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app, ctx


