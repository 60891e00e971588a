"""Checks answered from limits' in-process copy of what they read (read_cache.py): the copy
must give every check the answer the database would give — at each cap's boundary, after every
batch of transfers, cap change, freeze and session end — and must never keep a read that a write
overlapped, nor survive a write that failed."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from felt_contracts.base import new_id
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import (
    CheckKind,
    LimitName,
    LimitsCheck,
    LimitsFreeze,
    LimitsSessionEnd,
    LimitsSetCap,
    Scope,
)
from felt_contracts.wallet import TransferEvent, TransferKind
from felt_limits import store
from felt_limits.clock import SystemClock
from felt_limits.policy import Limits
from felt_limits.read_cache import ReadCache
from felt_limits.settings import LimitsSettings
from felt_runtime.bus import BusError
from felt_runtime.db import create_engine, migrate
from tests.limits.conftest import transfer_event

SETTINGS = LimitsSettings(
    default_daily_buy_in=400,
    default_daily_wager=300,
    default_reserved_exposure=250,
    default_session_hands=12,
    default_session_wager=120,
    raise_cooloff_seconds=0,  # raises apply at once: caps move both ways in the sequences
)


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[Any]:
    engine = create_engine(database_url)
    await migrate(engine, "felt_limits", "limits")
    yield engine
    await engine.dispose()


def transfer(
    kind: TransferKind, owner: str, account: str, session: str, amount: int, hand: str | None = None
) -> TransferEvent:
    return transfer_event(kind, amount, owner=owner, account=account, session=session, hand=hand)


async def answer(limits: Limits, req: LimitsCheck) -> tuple[str, Any]:
    try:
        return "allowed", (await limits.check(req)).headroom
    except BusError as exc:
        return exc.code.value, exc.details


def statements_of(limits: Limits) -> list[str]:
    """The statements a check sends (SQLite's checks read on their own connection)."""
    seen: list[str] = []
    target = limits.reader.sync if limits.reader.sync is not None else limits.engine.sync_engine
    sa.event.listen(target, "before_cursor_execute", lambda *a: seen.append(a[2]))
    return seen


async def test_a_repeated_check_reads_nothing_and_binds_at_the_cap_after_counted_wagers(engine: Any) -> None:
    limits = Limits(engine, SystemClock(), SETTINGS)
    owner, session = new_id(), new_id()
    account = f"{owner}-p"
    await limits.set_cap(
        LimitsSetCap(scope=Scope.PARTICIPANT, scope_id=account, limit=LimitName.DAILY_WAGER, cap=10), "t"
    )

    def wager(amount: int) -> LimitsCheck:
        return LimitsCheck(
            kind=CheckKind.WAGER, owner_id=owner, participant_id=account, session_id=session, amount=amount
        )

    assert (await limits.check(wager(10))).headroom[LimitName.DAILY_WAGER] == 10  # read, and kept
    seen = statements_of(limits)
    await limits.count([transfer(TransferKind.COMMIT, owner, account, session, 4, "h1")])
    await limits.count([transfer(TransferKind.COMMIT, owner, account, session, 6, "h2")])
    seen.clear()
    with pytest.raises(BusError) as over:  # at the cap: one chip more is refused
        await limits.check(wager(1))
    assert over.value.code is ErrorCode.LIMIT_EXCEEDED
    assert over.value.details["used"] == 10 and over.value.details["limit"] == "daily_wager"
    start = await limits.check(
        LimitsCheck(kind=CheckKind.START_HAND, owner_id=owner, participant_id=account, session_id=session)
    )
    assert start.headroom[LimitName.SESSION_HANDS] == 12 - 2  # two hands counted from the copy
    assert seen == []  # no statement: both answered from the copy
    await limits.set_cap(
        LimitsSetCap(scope=Scope.PARTICIPANT, scope_id=account, limit=LimitName.DAILY_WAGER, cap=11), "t"
    )
    seen.clear()
    assert (await limits.check(wager(1))).headroom[LimitName.DAILY_WAGER] == 1  # the raise is seen at once
    assert len(seen) == 1  # the changed scope read again


async def test_the_copy_gives_every_check_the_databases_answer(engine: Any) -> None:
    """Random sequences of transfers (buy-ins, commits of new and old hands, cash-outs, empty
    closes), session ends, cap changes both ways and freezes, between checks of every kind near
    the caps: after each step every check's answer from the long-lived service's copy equals the
    answer of a service started afresh on the same database (an empty copy: the database read)."""
    limits = Limits(engine, SystemClock(), SETTINGS)
    hits = 0
    for seed in range(4):
        rng = random.Random(seed)
        owners = [new_id() for _ in range(2)]
        accounts = {o: [f"{o}-a", f"{o}-b"] for o in owners}
        sessions = {a: new_id() for o in owners for a in accounts[o]}
        hands = 0
        for _ in range(70):
            owner = rng.choice(owners)
            account = rng.choice(accounts[owner])
            step = rng.random()
            if step < 0.45:
                batch = []
                for _ in range(rng.randint(1, 4)):
                    kind = rng.choice([TransferKind.COMMIT] * 4 + [TransferKind.BUY_IN, TransferKind.CASH_OUT])
                    o = rng.choice(owners)
                    a = rng.choice(accounts[o])
                    if kind is TransferKind.CASH_OUT:
                        batch.append(transfer(kind, o, a, sessions[a], rng.choice([0, 5, 40])))
                        sessions[a] = new_id()  # the next buy-in opens a new session
                    else:
                        hands += rng.random() < 0.5
                        hand = f"h{hands}" if kind is TransferKind.COMMIT else None
                        batch.append(transfer(kind, o, a, sessions[a], rng.randint(1, 60), hand))
                await limits.count(batch + batch[: rng.randint(0, 1)])  # sometimes an event twice
            elif step < 0.55:
                await limits.end_session(LimitsSessionEnd(session_id=sessions[account]), "t")
                sessions[account] = new_id()
            elif step < 0.75:
                scope, scope_id = rng.choice([(Scope.OWNER, owner), (Scope.PARTICIPANT, account)])
                limit = rng.choice(list(LimitName))
                cap = rng.choice([None, 0, 1, 20, 60, 150, 300])
                await limits.set_cap(LimitsSetCap(scope=scope, scope_id=scope_id, limit=limit, cap=cap), "t")
            elif step < 0.8:
                scope, scope_id = rng.choice([(Scope.OWNER, owner), (Scope.PARTICIPANT, account)])
                await limits.freeze(LimitsFreeze(scope=scope, scope_id=scope_id, frozen=rng.random() < 0.4), "t")
            for o in owners:
                for a in accounts[o]:
                    for kind in CheckKind:
                        amount = None if kind is CheckKind.CONTINUE_SESSION else rng.choice([1, 10, 40, 120])
                        req = LimitsCheck(
                            kind=kind, owner_id=o, participant_id=a, session_id=sessions[a], amount=amount
                        )
                        cached = await answer(limits, req)
                        hits += (
                            limits.cache.reads([("owner", o), ("participant", a)], [], None, None, False) is not None
                        )
                        assert cached == await answer(Limits(engine, SystemClock(), SETTINGS), req), (seed, req)
    assert hits > 1000  # the copy answered most checks


async def test_a_read_that_a_write_overlapped_is_not_kept(engine: Any) -> None:
    cache = ReadCache()
    shape: tuple[Any, ...] = ([("owner", "o")], [("owner", "o")], datetime.now(UTC).date(), "s", True)
    reads = store.CheckReads({}, {("owner", "o"): {}}, {("owner", "o"): (5, 7)}, {("owner", "o"): 9}, (1, 7))
    generation = cache.generation
    with cache.writing():
        pass
    cache.learn(generation, *shape, reads)  # a write began and ended while it was read
    assert cache.reads(*shape) is None
    with cache.writing():
        cache.learn(cache.generation, *shape, reads)  # a write is in flight
    assert cache.reads(*shape) is None
    cache.learn(cache.generation, *shape, reads)
    assert cache.reads(*shape) == reads


async def test_a_failed_write_drops_the_copy(engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    limits = Limits(engine, SystemClock(), SETTINGS)
    owner, session = new_id(), new_id()
    account = f"{owner}-p"
    req = LimitsCheck(kind=CheckKind.WAGER, owner_id=owner, participant_id=account, session_id=session, amount=5)
    await limits.check(req)

    async def broken(*args: Any) -> None:
        raise sa.exc.OperationalError("add_sessions", {}, Exception("disk I/O error"))

    with monkeypatch.context() as patch:
        patch.setattr(store, "add_sessions", broken)
        with pytest.raises(sa.exc.OperationalError):
            await limits.count([transfer(TransferKind.COMMIT, owner, account, session, 30, "h1")])
    assert limits.cache.reads([("owner", owner), ("participant", account)], [], None, None, False) is None
    await limits.count([transfer(TransferKind.COMMIT, owner, account, session, 30, "h1")])  # redelivered
    assert (await limits.check(req)).headroom[LimitName.SESSION_WAGER] == 120 - 30
