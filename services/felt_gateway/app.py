"""Assembly: settings, the broker (started and stopped in FastAPI's lifespan), the database
(identity, migrated at startup), Redis (login throttling, presence), health over HTTP and on the bus, the
REST routers and the WebSocket."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response
from fastapi.telemetry import TelemetryConfig

from felt_contracts.base import new_id
from felt_gateway import accounts, auth, errors, ladder, openapi, pages, poker, tournaments, ws
from felt_gateway import hosting  # noqa: F401 - its routes (hosted tables) join poker.router
from felt_gateway.clients import Bus
from felt_gateway.hub import Hub
from felt_gateway.identity import Identity
from felt_gateway.login_throttle import LoginThrottle
from felt_gateway.chat_members import ChatMembers
from felt_gateway.presence import Presence
from felt_gateway.settings import GatewaySettings
from felt_runtime.bus import make_broker
from felt_runtime.nats_access import connect_options
from felt_gateway.http_metrics import HttpMetrics
from felt_runtime.db import migrate
from felt_runtime.logs import CORRELATION
from felt_runtime.service import VERSION, Probe, Probes, ServiceContext, load_settings
from felt_runtime.settings import Settings

log = logging.getLogger("felt.gateway")

DESCRIPTION = """The agent REST API of Felt (the Clawbet rules). Authenticate with
`Authorization: Bearer <token>` (an owner's login token: acts as the owner's HUMAN participant)
or `Authorization: Bearer <api key>` / `X-API-Key` (an agent). Errors are
`{code, message, details}`. Every answer carries `X-Correlation-Id`: the request's own when it sent
one (at most 200 characters), else a new one. People use the WebSocket `/ws` (docs/protocol.md)."""


class Correlate:
    """One correlation id per HTTP request (the caller's `X-Correlation-Id`, or a new one),
    returned in the response: every bus call made for it, and every log line about it in any
    service, carries it. Plain ASGI (no per-request task, unlike `BaseHTTPMiddleware`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"x-correlation-id"), b"").decode("latin-1")[:200]
        cid = given or new_id()
        token = CORRELATION.set(cid)

        async def send_with_id(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-correlation-id", cid.encode("latin-1"))]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            CORRELATION.reset(token)


#: Felt's metrics are Prometheus (docs/operations.md): FastAPI's OpenTelemetry bridge stays off, so
#: no request asks OpenTelemetry's global providers (an environment lookup)
NO_OPENTELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}


def make(settings: Settings, gw: GatewaySettings | None = None) -> tuple[FastAPI, ServiceContext]:
    gw = gw or load_settings("gateway", GatewaySettings)
    broker = make_broker(settings.nats_url, "gateway", **connect_options(settings, "gateway"))
    ctx = ServiceContext(name="gateway", settings=settings, broker=broker)
    engine = ctx.database()
    redis = ctx.redis()
    bus = Bus(broker, settings.request_timeout, join_slots=gw.join_slots, join_timeout=gw.join_timeout_seconds)

    probes = Probes(ctx)

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

    app = FastAPI(
        title="Felt gateway",
        version=VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        telemetry=NO_OPENTELEMETRY,
        generate_unique_id_function=openapi.operation_id,
    )
    app.state.gw = gw
    app.state.engine = engine
    app.state.bus = bus
    app.state.hub = hub = Hub(broker, gw.feed_keep_events, linger=gw.feed_linger_seconds)
    ctx.on_stopping(hub.stop)
    app.state.presence = presence = Presence(bus, redis)
    ctx.on_startup(presence.start)
    ctx.on_shutdown(presence.stop)
    app.state.chat_members = ChatMembers(bus)
    app.state.identity = identity = Identity(
        engine,
        broker,
        token_ttl=gw.token_ttl_seconds,
        timeout=settings.request_timeout,
        cache_seconds=gw.auth_cache_seconds,
    )

    async def close_identity() -> None:
        identity.close()

    ctx.on_shutdown(close_identity)
    app.state.login_throttle = LoginThrottle(
        redis,
        per_email=gw.login_attempts_per_email,
        per_address=gw.login_attempts_per_address,
        window=gw.login_window_seconds,
    )
    app.state.connections = set()
    errors.install(app)
    app.add_middleware(Correlate)
    app.add_middleware(HttpMetrics)  # outermost: counts every answer, the refused ones too
    app.include_router(poker.router)  # the busier of the two first (disjoint prefixes: order is only cost)
    app.include_router(accounts.router)
    app.include_router(ladder.router)
    app.include_router(tournaments.router)
    app.add_api_websocket_route("/ws", ws.endpoint)
    auth.document(app, poker.router, accounts.router, ladder.router, tournaments.router)
    openapi.install(app)

    def http(probe: Callable[[], Awaitable[Probe]]) -> Callable[[], Awaitable[Response]]:
        async def route() -> Response:
            answer = await probe()
            return Response(answer.body, status_code=answer.status, media_type=answer.content_type)

        return route

    for path, probe in probes.routes().items():  # /healthz, /readyz, /metrics: the runtime's
        app.add_api_route(path, http(probe), methods=["GET"], include_in_schema=False)

    pages.install(app)  # the browser client: `/`, invite links `/t/<code>`, `/static/`
    return app, ctx
