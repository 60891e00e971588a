"""The standard service entry point: `python -m felt_<name>` runs any service the same way.

A service module provides `build(ctx: ServiceContext) -> None`, which registers its bus
handlers and start/stop hooks on `ctx`. The runtime adds the health responder on the bus,
`/healthz`, `/readyz` and Prometheus `/metrics` over HTTP, AsyncAPI docs at `/asyncapi`, JSON logs, preflight checks
that turn bad configuration into one line naming the setting, and graceful shutdown.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
from urllib.parse import urlsplit
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import uvicorn
from faststream.asgi import AsgiFastStream, AsgiResponse, get
from faststream.nats import NatsBroker
from pydantic import AliasChoices, ValidationError
from pydantic_settings import BaseSettings
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects
from felt_contracts.health import HealthRequest, HealthStatus
from felt_runtime import catalog, memtrace
from felt_runtime.bus import make_broker, responder, responders
from felt_runtime.collector import freeze_heap_once_started
from felt_runtime.db import create_engine, ping
from felt_runtime.metrics import READY, exposition
from felt_runtime.nats_access import connect_options
from felt_runtime.redis import make_redis
from felt_runtime.settings import Settings

VERSION = "0.1.0"
log = logging.getLogger("felt.service")

S = TypeVar("S", bound=BaseSettings)

Check = Callable[[], Awaitable[None]]
Hook = Callable[[], Awaitable[None]]


class ConfigError(SystemExit):
    """Bad configuration: the process exits with one line naming the setting."""

    def __init__(self, service: str, setting: str, problem: str) -> None:
        super().__init__(2)
        self.line = f"felt-{service}: {setting}: {problem}"


@dataclass
class Dependency:
    """A readiness check and the setting that configures what it checks."""

    setting: str
    check: Check


@dataclass
class ServiceContext:
    """What a service's `build` gets: settings, the broker, and places to hang hooks.

    Startup hooks run in order, then the broker starts; shutdown hooks run in order, then
    the broker stops. The runtime keeps one hook of its own at each end: the last startup
    hook opens the responders' subscriptions (`felt_runtime.bus.responder`), after the
    service's own hooks (migrations, writers) have run; the first shutdown hook drains them,
    so handlers in flight answer before the service's resources and the broker close.
    Stopping hooks (plain calls) run before all that, as the server stops accepting
    connections and before it waits for the requests in flight: a request that waits on
    purpose (a long-poll) answers at once instead of holding the stop for its whole wait.
    """

    name: str
    settings: Settings
    broker: NatsBroker
    dependencies: dict[str, Dependency] = field(default_factory=dict)
    startup: list[Hook] = field(default_factory=list)
    shutdown: list[Hook] = field(default_factory=list)
    stopping: list[Callable[[], None]] = field(default_factory=list)
    _engine: AsyncEngine | None = None
    _redis: Redis | None = None

    def __post_init__(self) -> None:
        served = responders(self.broker)
        self.startup.append(served.start)
        self.shutdown.insert(0, served.stop)

    def on_startup(self, hook: Hook) -> Hook:
        self.startup.insert(len(self.startup) - 1, hook)  # before the responders start
        return hook

    def on_shutdown(self, hook: Hook) -> Hook:
        self.shutdown.append(hook)
        return hook

    def on_stopping(self, hook: Callable[[], None]) -> None:
        self.stopping.append(hook)

    def database(self) -> AsyncEngine:
        """The service's database engine (created once; checked for readiness; disposed)."""
        if self._engine is None:
            engine = create_engine(self.settings.database_url_for(self.name))
            self._engine = engine
            self.dependencies["database"] = Dependency("FELT_DATABASE_URL", lambda: ping(engine))
            self.shutdown.append(engine.dispose)
        return self._engine

    def redis(self) -> Redis:
        """The service's Redis client (created once; checked for readiness; closed)."""
        if self._redis is None:
            client = make_redis(self.settings.redis_url)
            self._redis = client

            async def check() -> None:
                await client.ping()

            self.dependencies["redis"] = Dependency("FELT_REDIS_URL", check)
            self.shutdown.append(client.aclose)
        return self._redis

    async def check_all(self) -> dict[str, str]:
        """Run every readiness check; `ok` or the error text per dependency."""
        results: dict[str, str] = {}
        for name, dep in self.dependencies.items():
            try:
                await asyncio.wait_for(dep.check(), timeout=3)
                results[name] = "ok"
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                results[name] = f"{type(exc).__name__}: {exc}"[:300]
        return results


@dataclass(frozen=True)
class Probe:
    """One HTTP probe's answer, for whichever web framework serves it."""

    status: int
    body: bytes
    content_type: str = "application/json"


class Probes:
    """A service's health, defined once for the workers and the gateway: the responder on
    `felt.health.<name>`, and `/healthz` (alive: the process answers; a liveness probe, so it
    asks no dependency: an outage of NATS or a database must not restart every pod at once),
    `/readyz` (every dependency answers) and Prometheus `/metrics` as `Probe`s that each web framework wraps in its own
    response (`routes`)."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

        # one at a time: a probe that waits for an unreachable dependency holds up only probes
        @responder(ctx.broker, subjects.health(ctx.name), HealthRequest, queue=f"felt-{ctx.name}-health", concurrency=1)
        async def health(_: HealthRequest) -> HealthStatus:
            """Report this service's health and its dependencies'."""
            return await self.status()

    async def status(self) -> HealthStatus:
        checks = {"nats": "ok" if await self.ctx.broker.ping(2) else "unreachable", **await self.ctx.check_all()}
        READY.set(all(v == "ok" for v in checks.values()))
        return HealthStatus(
            service=self.ctx.name,
            status="ok" if all(v == "ok" for v in checks.values()) else "degraded",
            version=VERSION,
            checks=checks,
        )

    async def healthz(self) -> Probe:
        return Probe(200, json.dumps({"service": self.ctx.name, "status": "ok"}).encode())

    async def readyz(self) -> Probe:
        current = await self.status()
        return Probe(200 if current.status == "ok" else 503, current.model_dump_json().encode())

    async def metrics(self) -> Probe:
        body, content_type = exposition()
        return Probe(200, body, content_type)

    def routes(self) -> dict[str, Callable[[], Awaitable[Probe]]]:
        return {"/healthz": self.healthz, "/readyz": self.readyz, "/metrics": self.metrics}


def build_app(
    name: str, build: Callable[[ServiceContext], object], settings: Settings
) -> tuple[AsgiFastStream, ServiceContext]:
    """Assemble a worker service: its handlers, health on the bus and over HTTP, AsyncAPI."""
    broker = make_broker(settings.nats_url, name, **connect_options(settings, name))
    ctx = ServiceContext(name=name, settings=settings, broker=broker)
    build(ctx)
    probes = Probes(ctx)

    def asgi(probe: Callable[[], Awaitable[Probe]]) -> Any:
        @get(include_in_schema=False)
        async def route(scope: Any) -> AsgiResponse:
            answer = await probe()
            return AsgiResponse(answer.body, answer.status, headers={"content-type": answer.content_type})

        return route

    app = AsgiFastStream(
        broker,
        asgi_routes=[(path, asgi(probe)) for path, probe in probes.routes().items()],
        on_startup=ctx.startup,
        on_shutdown=ctx.shutdown,
        asyncapi_path="/asyncapi",
        logger=logging.getLogger(f"felt.{name}"),
    )
    return app, ctx


def load_settings(name: str, model: type[S]) -> S:
    """Settings of `model` from the environment, or a one-line error naming the bad setting
    (with the model's own prefix, e.g. FELT_TABLE_TURN_SECONDS): every service loads its
    settings here (tests/runtime/test_service.py starts each with a bad value)."""
    try:
        return model()
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(name, setting_name(model, str(err["loc"][0]) if err["loc"] else ""), err["msg"]) from None


def setting_name(model: type[BaseSettings], key: str) -> str:
    """The environment variable behind `key` (a field name, or an alias pydantic reported):
    the prefixed field name, or for a field with aliases the one that is set (else the first)."""
    prefix = str(model.model_config.get("env_prefix", "")).upper()
    for field_name, info in model.model_fields.items():
        alias = info.validation_alias
        names = (
            [c for c in alias.choices if isinstance(c, str)]
            if isinstance(alias, AliasChoices)
            else [alias]
            if isinstance(alias, str)
            else []
        )
        if key == field_name or key in names:
            if not names:
                break
            return next((n.upper() for n in names if n.upper() in {k.upper() for k in os.environ}), names[0].upper())
    return prefix + (key.upper() or "*")


def check_port_free(name: str, host: str, port: int) -> None:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise ConfigError(name, "FELT_HTTP_PORT", f"cannot listen on {host}:{port} ({exc.strerror})") from None


async def check_dependencies(name: str, settings: Settings, ctx: ServiceContext | None) -> None:
    """Fail fast with one line if NATS or a dependency the service declared is unreachable."""
    url = urlsplit(settings.nats_url.split(",")[0])
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(url.hostname, url.port or 4222), 3)
        greeting = await asyncio.wait_for(reader.readline(), 3)
        writer.close()
    except (OSError, TimeoutError) as exc:
        raise ConfigError(
            name, "FELT_NATS_URL", f"cannot reach NATS at {settings.nats_url} ({type(exc).__name__})"
        ) from None
    if not greeting.startswith(b"INFO"):
        raise ConfigError(name, "FELT_NATS_URL", f"{settings.nats_url} does not speak the NATS protocol")
    if ctx is not None:
        for dep_name, dep in ctx.dependencies.items():
            try:
                await asyncio.wait_for(dep.check(), timeout=5)
            except Exception as exc:  # noqa: BLE001 - any failure of the check is the one line naming the setting
                raise ConfigError(
                    name, dep.setting, f"{dep_name} unreachable ({type(exc).__name__}: {exc})"[:300]
                ) from None


class _Server(uvicorn.Server):
    """uvicorn's server, telling the service it stops (`ServiceContext.stopping`) before it
    waits for the requests in flight: otherwise the gateway's long-polls would hold a Ctrl-C of
    `make run` for up to their whole wait."""

    def __init__(self, stopping: list[Callable[[], None]], config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stopping = stopping

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for hook in self.stopping:
            hook()
        await super().shutdown(sockets)


def serve(name: str, make: Callable[[Settings], tuple[Any, ServiceContext | None]]) -> None:
    """Run an ASGI app (worker or gateway) on uvicorn after preflight checks, in one event loop."""
    from felt_runtime.logs import configure_logging

    memtrace.install(name)

    async def run() -> bool:
        settings = load_settings(name, Settings)
        os.nice(settings.nice)
        configure_logging(name, settings.log_level)
        port = settings.http_port or settings.default_port(catalog.default_port(name))
        check_port_free(name, settings.http_host, port)
        app, ctx = make(settings)
        await check_dependencies(name, settings, ctx)
        server = _Server(
            ctx.stopping if ctx else [],
            uvicorn.Config(
                app,
                host=settings.http_host,
                port=port,
                log_config=None,
                lifespan="on",
                timeout_keep_alive=settings.http_keep_alive_seconds,
                ws_per_message_deflate=settings.http_ws_compression,
            ),
        )
        log.info("starting", extra={"port": port})
        freezing = asyncio.create_task(freeze_heap_once_started(server, settings.gc_full_seconds))
        await server.serve()
        freezing.cancel()
        return server.started

    try:
        started = asyncio.run(run())
    except ConfigError as exc:
        print(exc.line, file=sys.stderr)
        raise
    if not started:
        raise SystemExit(1)


def main(name: str, build: Callable[[ServiceContext], object]) -> None:
    """`python -m felt_<name>` for a worker service."""
    serve(name, lambda settings: build_app(name, build, settings))
