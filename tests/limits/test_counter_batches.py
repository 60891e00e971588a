"""Limits applies wallet transfer events in batches of any size (counters.apply_events, one
cached statement per writer executed with the batch's rows): the counts are exact and each
event counts once, also when a batch is delivered again."""

from __future__ import annotations

from datetime import UTC, datetime

from felt_contracts.base import new_id
from felt_contracts.wallet import TransferEvent, TransferKind
from felt_limits import store
from felt_limits.clock import SystemClock
from felt_limits.counters import apply_events
from felt_runtime.db import create_engine, migrate

SIZES = range(1, 41)


def commits(owner: str, n: int) -> list[TransferEvent]:
    now = datetime.now(UTC)
    session = new_id()
    return [
        TransferEvent(
            event_id=new_id(),
            transfer_id=new_id(),
            kind=TransferKind.COMMIT,
            account_id=f"{owner}-p",
            owner_id=owner,
            session_id=session,
            table_id="t1",
            hand_id=f"h{i}",
            amount=2,
            at=now,
        )
        for i in range(n)
    ]


async def test_batches_of_every_size_count_exactly_and_once(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await migrate(engine, "felt_limits", "limits")
        owner = new_id()
        clock = SystemClock()
        await apply_events(engine, clock, commits(owner, 1))
        batches = [commits(owner, n) for n in SIZES]
        for batch in batches:
            assert len((await apply_events(engine, clock, batch)).fresh) == len(batch)
        assert (await apply_events(engine, clock, batches[-1])).fresh == []  # already counted: nothing again
        async with engine.connect() as conn:
            _, wager = await store.get_daily(conn, "owner", owner, datetime.now(UTC).date())
        assert wager == 2 * (1 + sum(SIZES))
    finally:
        await engine.dispose()
