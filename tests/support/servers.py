"""Real servers for tests: NATS with JetStream, a Redis-protocol server, PostgreSQL and SQLite.

Order of preference for NATS and Redis: the URL in FELT_TEST_NATS_URL / FELT_TEST_REDIS_URL;
the pip-installed binaries (nats-server 2.15, valkey) on free ports with temp dirs;
testcontainers when a Docker engine answers; otherwise the test is skipped with the reason.

The embedded NATS runs with the users and permissions `felt up` generates
(`felt_runtime.nats_access`): each service started by `ServiceRunner` connects as its own user
(`identity_env`), and the URL the tests get carries a user of the tests, allowed everything,
for the clients that play every other party.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import nats
import nats.aio.client

import pytest
from faststream.nats import NatsBroker

from felt_runtime import infra, nats_access

#: the tests' own NATS user (allowed everything) in the URLs `nats_server` yields
TEST_USER = "test"
#: the embedded servers' passwords, by the URL the tests got (`identity_env`)
_PASSWORDS: dict[str, dict[str, str]] = {}


def identity_env(nats_url: str, service: str) -> dict[str, str]:
    """`FELT_NATS_*` for a service of the room at `nats_url`: its own user, and the URL without the
    tests' user. A service the bus declaration does not know (a test's own) keeps the tests' user;
    a server the tests did not start (FELT_TEST_NATS_URL) gets no user."""
    passwords = _PASSWORDS.get(nats_url)
    if passwords is None or service not in passwords:
        return {"FELT_NATS_URL": nats_url}
    return {
        "FELT_NATS_URL": plain_url(nats_url),
        "FELT_NATS_USER": service,
        "FELT_NATS_PASSWORD": passwords[service],
    }


def passwords_of(nats_url: str) -> dict[str, str]:
    """Every identity's password of an embedded NATS the tests started (skips on another one)."""
    if nats_url not in _PASSWORDS:
        pytest.skip("the NATS of FELT_TEST_NATS_URL runs without the generated users")
    return _PASSWORDS[nats_url]


@dataclass
class Connection:
    """A nats-py connection as one identity, and what the server refused it (`refused`)."""

    nc: nats.aio.client.Client
    errors: list[str] = field(default_factory=list)

    async def refused(self, subject: str, timeout: float = 10.0) -> bool:
        """Whether the server reports a permission violation for `subject` (it reports one
        asynchronously, after the publish or subscribe returned)."""
        await self.nc.flush()
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            if any("permissions violation" in e and f'"{subject.lower()}"' in e for e in self.errors):
                return True
            await asyncio.sleep(0.05)
        return False


@asynccontextmanager
async def connected_as(nats_url: str, identity: str) -> AsyncIterator[Connection]:
    """A plain nats-py connection as `identity` (a service's or the operator's user)."""
    passwords = passwords_of(nats_url)
    errors: list[str] = []

    async def on_error(exc: Exception) -> None:
        errors.append(str(exc).lower())

    nc = await nats.connect(
        plain_url(nats_url),
        user=identity,
        password=passwords[identity],
        inbox_prefix=nats_access.inbox_prefix(identity),
        error_cb=on_error,
        max_reconnect_attempts=0,
    )
    try:
        yield Connection(nc, errors)
    finally:
        await nc.close()


def plain_url(nats_url: str) -> str:
    """The URL without a user."""
    scheme, _, rest = nats_url.partition("://")
    return f"{scheme}://{rest.rpartition('@')[2]}"


def start_nats_with_users(port: int, tmp: Path) -> tuple[infra.Server, str]:
    """An embedded NATS with the generated users plus the tests' one; the server and the URL the
    tests connect with (as `TEST_USER`). Started again in the same `tmp`, it keeps every password."""
    kept = tmp / "auth" / f"{TEST_USER}.password"
    password = kept.read_text() if kept.exists() else secrets.token_urlsafe(16)
    config, passwords = nats_access.generate(tmp / "auth", (nats_access.superuser(TEST_USER, password),))
    kept.write_text(password)
    server = infra.start_nats(port, tmp / "nats", tmp / "nats.log", config=config)
    url = server.url.replace("nats://", f"nats://{TEST_USER}:{password}@")
    _PASSWORDS[url] = passwords
    return server, url


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
        lambda: start_nats_with_users(infra.free_port(), tmp),
        "nats-server",
        "nats:2.15",
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
        "valkey/valkey:9",
        6379,
        "redis://",
    ) as url:
        yield url


@contextmanager
def _server(
    env: str,
    start: Callable[[], infra.Server | tuple[infra.Server, str]],
    name: str,
    image: str,
    port: int,
    scheme: str,
    *command: str,
) -> Iterator[str]:
    """The URL in `env`; else the embedded server `start` launches (and the URL to use, where it
    is not the server's own); else a container."""
    if url := os.environ.get(env):
        yield url
        return
    try:
        started = start()
    except infra.InfraError as exc:
        with _container_or_skip(image, f"embedded {name} failed: {exc}", port, *command) as url:
            yield url.replace("http://", scheme)
        return
    server, url = started if isinstance(started, tuple) else (started, started.url)
    try:
        yield url
    finally:
        server.stop()
        _PASSWORDS.pop(url, None)


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
