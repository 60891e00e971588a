"""`felt migrate`: bring every service's schema to its newest revision, once, before the
services start (the Kubernetes migration Job). `felt migrate --wait` blocks until no migration
is due (the services' init container), so replicas never race an upgrade. Services still
migrate at startup on a laptop; at the newest revision that is a no-op."""

from __future__ import annotations

import asyncio
import sys
import time
from importlib import resources
from importlib.util import find_spec

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


async def upgrade_all(settings: Settings) -> None:
    async def up(engine, package, name) -> bool:
        await migrate(engine, package, name)
        return True

    await _each(settings, up)


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
