"""Real servers for tests: NATS with JetStream, a Redis-protocol server, PostgreSQL and SQLite.

Order of preference for NATS and Redis: the URL in FELT_TEST_NATS_URL / FELT_TEST_REDIS_URL;
the pip-installed binaries (nats-server 2.15, valkey) on free ports with temp dirs;
testcontainers when a Docker engine answers; otherwise the test is skipped with the reason.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest
from faststream.nats import NatsBroker

from felt_runtime import infra


@asynccontextmanager
async def connected(nats_url: str) -> AsyncIterator[NatsBroker]:
    """A connected FastStream NATS client for `felt_runtime.bus.call` (the tests' `bus` fixtures)."""
    broker = NatsBroker(nats_url)
    await broker.connect()
    try:
        yield broker
    finally:
        await broker.stop()


@contextmanager
def nats_server(tmp: Path) -> Iterator[str]:
    with _server(
        "FELT_TEST_NATS_URL",
        lambda: infra.start_nats(infra.free_port(), tmp / "nats", tmp / "nats.log"),
        "nats-server",
        "nats:2.12",
        4222,
        "nats://",
        "-js",
    ) as url:
        yield url


@contextmanager
def redis_server(tmp: Path) -> Iterator[str]:
    with _server(
        "FELT_TEST_REDIS_URL",
        lambda: infra.start_valkey(infra.free_port(), tmp / "valkey", tmp / "valkey.log", persist=False),
        "valkey",
        "valkey/valkey:8",
        6379,
        "redis://",
    ) as url:
        yield url


@contextmanager
def _server(
    env: str, start: Callable[[], infra.Server], name: str, image: str, port: int, scheme: str, *command: str
) -> Iterator[str]:
    """The URL in `env`; else the embedded server `start` launches; else a container."""
    if url := os.environ.get(env):
        yield url
        return
    try:
        server = start()
    except infra.InfraError as exc:
        with _container_or_skip(image, f"embedded {name} failed: {exc}", port, *command) as url:
            yield url.replace("http://", scheme)
        return
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def _container_or_skip(image: str, why: str, port: int, *command: str) -> Iterator[str]:
    """Fall back to testcontainers when a Docker engine answers; otherwise skip visibly."""
    try:
        from testcontainers.core.container import DockerContainer  # type: ignore[import-not-found]  # optional: only with a Docker engine

        container = DockerContainer(image).with_exposed_ports(port)
        if command:
            container = container.with_command(" ".join(command))
        container.start()
    except Exception as exc:  # noqa: BLE001 - no engine, no package: both mean skip
        pytest.skip(f"{why}; no Docker fallback ({type(exc).__name__})")
    try:
        yield f"http://{container.get_container_host_ip()}:{container.get_exposed_port(port)}"
    finally:
        container.stop()


class PostgresDatabases:
    """Creates a fresh PostgreSQL database per request and drops them all at the end."""

    def __init__(self, base_url: str) -> None:
        from sqlalchemy.engine import make_url

        self.base = make_url(base_url)
        self.created: list[str] = []

    async def create(self) -> str:
        import asyncpg

        name = f"felt_test_{uuid.uuid4().hex[:12]}"
        conn = await asyncpg.connect(**self._connect_args())
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        self.created.append(name)
        return self.base.set(database=name).render_as_string(hide_password=False)

    async def drop_all(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(**self._connect_args())
        try:
            for name in self.created:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def _connect_args(self) -> dict[str, object]:
        b = self.base
        return {
            "host": b.host or "127.0.0.1",
            "port": b.port or 5432,
            "user": b.username or "postgres",
            "password": b.password,
            "database": b.database or "postgres",
        }
