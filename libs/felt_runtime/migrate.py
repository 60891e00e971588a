"""`felt migrate`: bring every service's schema to its newest revision before the services
start: the init container of every Kubernetes pod with a schema runs it, on every rollout, so an
upgrade is re-applied with the Deployments themselves (no Job to delete first). On PostgreSQL the
migrations of concurrent pods take turns under an advisory lock; the first brings the schema up,
the others find nothing due. `felt migrate --wait` blocks until no migration is due. Services still
migrate at startup on a laptop; at the newest revision that is a no-op."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from importlib import resources
from importlib.util import find_spec

from sqlalchemy import text

from felt_runtime import catalog
from felt_runtime.db import create_engine, migrate, pending
from felt_runtime.settings import Settings


def migrated_services() -> list[str]:
    """Installed services that keep a schema (a `migrations/` folder)."""
    return [
        n
        for n in catalog.installed()
        if find_spec(f"felt_{n}") and (resources.files(f"felt_{n}") / "migrations").is_dir()
    ]


async def _each(settings: Settings, act) -> list[str]:
    done = []
    for name in migrated_services():
        engine = create_engine(settings.database_url_for(name))
        try:
            if await act(engine, f"felt_{name}", name):
                done.append(name)
        finally:
            await engine.dispose()
    return done


#: the PostgreSQL advisory lock that serializes `felt migrate` across pods (any constant; "felt")
MIGRATION_LOCK = 0x66656C74


async def upgrade_all(settings: Settings) -> None:
    async def up(engine, package, name) -> bool:
        await migrate(engine, package, name)
        return True

    async with migration_turn(settings):
        await _each(settings, up)


@contextlib.asynccontextmanager
async def migration_turn(settings: Settings) -> AsyncIterator[None]:
    """Hold the migration lock of a shared PostgreSQL database (each service's own URL, when
    they differ, is locked in turn); SQLite files are one process's."""
    urls = sorted({settings.database_url_for(n) for n in migrated_services()})
    async with contextlib.AsyncExitStack() as held:
        for url in urls:
            if not url.startswith("postgresql"):
                continue
            engine = create_engine(url)
            held.push_async_callback(engine.dispose)
            conn = await held.enter_async_context(engine.connect())
            await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            held.push_async_callback(conn.execute, text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
        yield


async def behind(settings: Settings) -> list[str]:
    """Services whose schema is not at the newest revision."""
    return await _each(settings, pending)


def run(wait: bool, timeout: float) -> int:
    settings = Settings()
    if not wait:
        asyncio.run(upgrade_all(settings))
        print("felt migrate: " + ", ".join(migrated_services()) + " at the newest revision")
        return 0
    deadline = time.monotonic() + timeout
    while True:
        try:
            due = asyncio.run(behind(settings))
        except OSError as exc:  # the database is not up yet
            due = [f"database unreachable ({type(exc).__name__})"]
        if not due:
            return 0
        if time.monotonic() > deadline:
            print(f"felt migrate --wait: still due after {timeout:.0f}s: {', '.join(due)}", file=sys.stderr)
            return 1
        time.sleep(1)
