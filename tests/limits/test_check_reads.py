"""A check reads everything it needs in one statement (`store.check_query`, a UNION ALL): the
caps in force (a pending raise not yet), the freezes, the daily counters, the reserved exposure
and the session, each from its own table, on SQLite and PostgreSQL. Five round trips per check
were most of limits' CPU in the profiles (docs/benchmarks.md)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from felt_contracts.base import new_id
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import CheckKind, LimitName, LimitsCheck
from felt_contracts.wallet import TransferEvent, TransferKind
from felt_limits import store
from felt_limits.clock import SystemClock
from felt_limits.counters import apply_events
from felt_limits.policy import Limits
from felt_limits.settings import LimitsSettings
from felt_runtime.bus import BusError
from felt_runtime.db import create_engine, migrate
from tests.limits.conftest import transfer_event


def event(kind: TransferKind, owner: str, session: str, amount: int, hand: str | None = None) -> TransferEvent:
    return transfer_event(kind, amount, owner=owner, account=f"{owner}-p", session=session, hand=hand)


async def test_a_check_is_one_statement_that_reads_every_table(database_url: str) -> None:
    engine = create_engine(database_url)
    statements: list[str] = []
    sa.event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    try:
        await migrate(engine, "felt_limits", "limits")
        owner, session, clock = new_id(), new_id(), SystemClock()
        participant = f"{owner}-p"
        played = [event(TransferKind.COMMIT, owner, session, 2, f"h{i}") for i in range(3)]
        await apply_events(engine, clock, [event(TransferKind.BUY_IN, owner, session, 150), *played])
        now = datetime.now(UTC)
        async with engine.begin() as conn:  # a participant cap of 40 with a raise to 90 pending
            await conn.execute(
                sa.insert(store.caps),
                [
                    dict(
                        scope="participant",
                        scope_id=participant,
                        limit_name=name,
                        cap=40,
                        pending_cap=90,
                        pending_effective_at=now + timedelta(hours=1),
                        updated_at=now,
                    )
                    for name in ("daily_wager", "reserved_exposure", "session_hands")
                ],
            )
        limits = Limits(engine, clock, LimitsSettings())
        if limits.reader.sync is not None:  # SQLite: checks read on their own connection
            sa.event.listen(limits.reader.sync, "before_cursor_execute", lambda *a: statements.append(a[2]))

        def ask(kind: CheckKind, amount: int | None = None) -> LimitsCheck:
            limits.cache.clear()  # each check on an empty copy (read_cache.py): what the database gives
            return LimitsCheck(kind=kind, owner_id=owner, participant_id=participant, session_id=session, amount=amount)

        statements.clear()
        wager = await limits.check(ask(CheckKind.WAGER, amount=4))
        start = await limits.check(ask(CheckKind.START_HAND))
        with pytest.raises(BusError) as exposed:  # 150 reserved in the open session, over the cap of 40
            await limits.check(ask(CheckKind.BUY_IN, amount=10))
        assert len(statements) == 3 and all("UNION ALL" in s for s in statements), statements
        assert wager.headroom[LimitName.DAILY_WAGER] == 40 - 6  # the participant's cap binds, not the owner's
        assert start.headroom[LimitName.SESSION_HANDS] == 40 - 3
        assert exposed.value.details["limit"] == "reserved_exposure" and exposed.value.details["used"] == 150
        with pytest.raises(BusError) as over:
            await limits.check(ask(CheckKind.WAGER, amount=35))
        assert over.value.code is ErrorCode.LIMIT_EXCEEDED and over.value.details["used"] == 6

        async with engine.begin() as conn:  # written behind limits' back: seen by a check on an empty copy
            await conn.execute(
                sa.insert(store.freezes),
                [dict(scope="owner", scope_id=owner, frozen=True, reason="a break", updated_at=now)],
            )
        statements.clear()
        with pytest.raises(BusError) as frozen:
            await limits.check(ask(CheckKind.WAGER, amount=1))
        assert frozen.value.code is ErrorCode.FROZEN and frozen.value.details["reason"] == "a break"
        assert len(statements) == 1
    finally:
        await engine.dispose()


async def test_a_buy_in_check_finds_the_open_sessions_by_index_whatever_the_history(database_url: str) -> None:
    """Reserved exposure sums a scope's open sessions; with an index on the owner (or account)
    alone every closed session of its history was read too (2.1 ms CPU per buy-in check with
    none, 5.4 ms with 20,000 closed). Both scopes' sessions are found by (id, closed)."""
    engine = create_engine(database_url)
    captured: list[tuple[str, object]] = []
    sa.event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: captured.append((a[2], a[3])))
    try:
        await migrate(engine, "felt_limits", "limits")
        owner, clock = new_id(), SystemClock()
        history = [event(TransferKind.BUY_IN, owner, f"old{i}", 10) for i in range(50)]
        history += [event(TransferKind.CASH_OUT, owner, f"old{i}", 10) for i in range(50)]
        await apply_events(engine, clock, [*history, event(TransferKind.BUY_IN, owner, "open", 30)])
        limits = Limits(engine, clock, LimitsSettings())
        if limits.reader.sync is not None:
            sa.event.listen(limits.reader.sync, "before_cursor_execute", lambda *a: captured.append((a[2], a[3])))
        captured.clear()
        decision = await limits.check(
            LimitsCheck(kind=CheckKind.BUY_IN, owner_id=owner, participant_id=f"{owner}-p", amount=5)
        )
        [(statement, params)] = captured
        async with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                plan = " ".join(
                    str(r[-1]) for r in await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)
                )
            else:
                await conn.exec_driver_sql("SET enable_seqscan = off")  # a tiny table: ask which index fits
                plan = " ".join(str(r[0]) for r in await conn.exec_driver_sql(f"EXPLAIN {statement}", params))
    finally:
        await engine.dispose()
    default_exposure = LimitsSettings().defaults()[LimitName.RESERVED_EXPOSURE]
    assert decision.headroom[LimitName.RESERVED_EXPOSURE] == default_exposure - 30  # the open session only
    for index in ("ix_limits_sessions_owner_open", "ix_limits_sessions_account_open"):
        assert index in plan, plan
    # the closed flag is part of the index search, not a filter over every row the owner had
    for part in plan.split("ix_limits_sessions_")[1:]:
        if part.startswith(("owner_open", "account_open")):
            assert re.search(r"(closed=\?|Index Cond: .*closed = false)", part.split("->")[0]), plan


async def test_a_check_on_a_locked_sqlite_file_waits_on_the_async_driver_not_in_the_loop(tmp_path, caplog) -> None:
    """Checks read SQLite in the loop's own thread; a file another process holds locked must
    not stall the loop (every other check and reply of the service would wait): the read gives
    up after `LoopReader`'s busy time and waits on the async driver, and answers once the lock goes."""
    path = tmp_path / "limits.sqlite"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    await migrate(engine, "felt_limits", "limits")
    limits = Limits(engine, SystemClock(), LimitsSettings())
    owner = new_id()
    check = LimitsCheck(kind=CheckKind.BUY_IN, owner_id=owner, participant_id=f"{owner}-p", amount=5)
    await limits.check(check)
    limits.cache.clear()  # the next check reads the database (read_cache.py)
    await engine.dispose()  # no connection open: the locker's exclusive lock takes the whole file
    assert limits.reader.sync is not None
    limits.reader.sync.dispose()
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("PRAGMA locking_mode=EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")
    locker.execute("INSERT INTO limits_events VALUES ('lock', 'x', '2026-01-01')")  # takes the exclusive lock
    stalls: list[float] = []

    async def ticker() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            stalls.append(time.monotonic() - before - 0.01)

    ticking = asyncio.create_task(ticker())
    try:
        answer = asyncio.create_task(limits.check(check))
        await asyncio.sleep(0.5)
        assert not answer.done()  # waiting for the lock...
        locker.execute("ROLLBACK")
        locker.close()
        decision = await asyncio.wait_for(answer, 10)  # ...and answering once it is gone
    finally:
        ticking.cancel()
        limits.close()
        await engine.dispose()
    assert decision.headroom[LimitName.RESERVED_EXPOSURE] is not None
    assert max(stalls) < 0.25, max(stalls)  # the loop went on meanwhile
    assert any("found the database busy" in r.getMessage() for r in caplog.records)
