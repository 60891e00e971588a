"""The table store writes through one writer: a table created while hands are being written waits
for the batch in progress, not for SQLite's lock (whose busy handler polls, and lost to the play's
back-to-back group commits for seconds: table creation timed out in a busy room)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from felt_runtime.db import create_engine, migrate
from felt_table.ports.store import Store, table_events

HOLD = 0.02  # seconds each play batch holds the write lock


async def test_a_table_created_during_back_to_back_hand_writes_waits_one_batch_not_the_lock(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'table.sqlite'}")
    await migrate(engine, "felt_table", "table")
    store = Store(engine)
    batches = 0
    stop = asyncio.Event()

    def batch(conn: sa.Connection, seq: int) -> None:
        conn.execute(table_events.insert().values(table_id="busy", seq=seq, hand_id=None, body="{}"))
        time.sleep(HOLD)

    async def play() -> None:  # the actors' group commits, one after the other as under load
        nonlocal batches
        while not stop.is_set():
            await store.transactions.run(batch, batches)
            batches += 1

    writer = asyncio.create_task(play())
    try:
        await asyncio.sleep(5 * HOLD)
        before = batches
        asyncio.get_running_loop().call_later(150 * HOLD, stop.set)  # bounds the test without the fix
        await store.add_table("new", "{}", datetime.now(UTC))
        waited = batches - before
    finally:
        stop.set()
        await writer
        store.close()
        await engine.dispose()
    assert waited <= 2, f"the new table waited {waited} play batches for the lock"
