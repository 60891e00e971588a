"""The gateway's account writes under a busy event loop (`make load`'s 2,000 step: new agents
were answered 500 `internal`, "database is locked", after SQLite's 30 s lock wait ran out).

A write transaction on the async driver holds SQLite's write lock across event-loop turns, one
per statement and one for the commit; when the loop is slow, each holds it for many turns and a
burst of writers queues past the lock wait. Here the lock wait is 0.5 s and the loop is slowed
by a task that blocks it 10 ms per turn: 60 key rotations at once must all be served.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from faststream.nats import NatsBroker
from sqlalchemy import event
from sqlalchemy.ext.asyncio import create_async_engine

from felt_gateway.identity import AGENT, HUMAN, KEY_PREFIX, Identity
from felt_gateway.store import api_keys, owners, participants
from felt_runtime.db import migrate, sqlite_pragmas

AGENTS = 60


async def busy_loop(stop: asyncio.Event) -> None:
    """Block the loop 10 ms per turn, as a saturated gateway's other requests do."""
    while not stop.is_set():
        time.sleep(0.01)
        await asyncio.sleep(0)


async def test_a_burst_of_key_rotations_on_a_busy_loop_is_served(tmp_path: Path, broker: NatsBroker) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'gateway.sqlite'}", connect_args={"timeout": 0.5})
    event.listen(engine.sync_engine, "connect", sqlite_pragmas)
    await migrate(engine, "felt_gateway", "gateway")
    now = datetime.now(UTC)
    agents = [f"agent{i}" for i in range(AGENTS)]
    async with engine.begin() as conn:
        await conn.execute(
            owners.insert().values(id="owner1", email="o@example.com", password_hash="x", created_at=now)
        )
        await conn.execute(
            participants.insert(),
            [dict(id="human1", owner_id="owner1", kind=HUMAN, name="o", human_slot=HUMAN, created_at=now)]
            + [dict(id=a, owner_id="owner1", kind=AGENT, name=a, human_slot=None, created_at=now) for a in agents],
        )
    identity = Identity(engine, broker, token_ttl=3600, timeout=5)
    stop = asyncio.Event()
    hog = asyncio.create_task(busy_loop(stop))
    try:
        keys = await asyncio.gather(*(identity.issue_key("owner1", a) for a in agents), return_exceptions=True)
    finally:
        stop.set()
        await hog
    failed = [k for k in keys if isinstance(k, BaseException)]
    assert not failed, f"{len(failed)} of {AGENTS} rotations failed: {failed[0]!r}"
    assert all(isinstance(k, str) and k.startswith(KEY_PREFIX) for k in keys)
    for key in keys:  # every new key authenticates as its agent
        assert isinstance(key, str)
        assert (await identity.authenticate(key)).kind == AGENT
    async with engine.connect() as conn:
        live = (await conn.execute(sa.select(sa.func.count()).where(api_keys.c.revoked_at.is_(None)))).scalar()
    assert live == AGENTS  # one live key per agent
    identity.close()
    await engine.dispose()
