"""Tournament tests: wallet, limits and the tournament service as real processes (one stack per
module, one SQLite file) against the session's NATS; each test makes tournaments of its own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from decimal import Decimal
from typing import Any

import pytest
from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.tournament import (
    CreateTournament,
    Level,
    PayoutTier,
    Register,
    Registration,
    TournamentDefinition,
    TournamentView,
)
from felt_contracts.wallet import AccountOpened, Balance, BalanceQuery, OpenAccount, PoolQuery, PoolState
from felt_runtime.bus import call, make_broker
from tests.support.services import ServiceProcess, ServiceRunner

FAST_RETRY = {"felt_tournament_retry_seconds": "0.2", "felt_tournament_call_timeout_seconds": "2"}


def definition(**over: Any) -> TournamentDefinition:
    """A valid six-seat Sit & Go; `over` replaces fields."""
    raw: dict[str, Any] = dict(
        tournament_id=f"t-{uuid.uuid4().hex[:10]}",
        name="Test Sit & Go",
        buy_in=50,
        starting_chips=1500,
        levels=[
            Level(small_blind=10, big_blind=20, duration_seconds=300),
            Level(small_blind=15, big_blind=30, duration_seconds=300),
            Level(duration_seconds=60, is_break=True),
            Level(small_blind=25, big_blind=50, ante=50, ante_mode="big_blind", duration_seconds=300),
        ],
        seats_per_table=6,
        min_entrants=2,
        max_entrants=6,
        payouts=[
            PayoutTier(min_entrants=2, percents=[Decimal(100)]),
            PayoutTier(min_entrants=4, percents=[Decimal(65), Decimal(35)]),
        ],
    )
    raw.update(over)
    return TournamentDefinition(**raw)


def short_template(path: Path, starting_chips: int, level_seconds: int) -> str:
    """A recurring six-seat Sit & Go (`sng-six`) that ends in minutes, written to `path`: the
    value of `FELT_TOURNAMENT_RECURRING_FILE`."""
    template = definition(
        tournament_id="sng-six",
        starting_chips=starting_chips,
        min_entrants=6,
        levels=[Level(small_blind=10 * 2**n, big_blind=20 * 2**n, duration_seconds=level_seconds) for n in range(10)],
        payouts=[PayoutTier(min_entrants=6, percents=[Decimal(65), Decimal(35)])],
    )
    path.write_text(template.model_dump_json())
    return str(path)


@dataclass
class Room:
    procs: dict[str, ServiceProcess]
    database_url: str


@pytest.fixture(scope="module")
def room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    workdir = tmp_path_factory.mktemp("tournament")
    runner = ServiceRunner(nats_url, redis_url, workdir)
    db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    try:
        procs = {
            n: runner.start(n, database_url=db, ready=False, **FAST_RETRY) for n in ("wallet", "limits", "tournament")
        }
        for proc in procs.values():
            proc.wait_ready()
        yield Room(procs, db)
    finally:
        runner.stop_all()


@pytest.fixture
async def bus(room: Room, nats_url: str) -> AsyncIterator[NatsBroker]:
    broker = make_broker(nats_url, "test")
    await broker.connect()
    yield broker
    await broker.stop()


async def accounts(bus: NatsBroker, n: int) -> list[str]:
    """`n` new wallet accounts (200 chips each), each its own owner."""
    names = [f"a{i}-{uuid.uuid4().hex[:8]}" for i in range(n)]
    for name in names:
        await call(bus, subjects.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=name, owner_id=name), AccountOpened)
    return names


async def create(bus: NatsBroker, **over: Any) -> TournamentDefinition:
    d = definition(**over)
    await call(bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=d), TournamentView)
    return d


async def register(bus: NatsBroker, tid: str, who: str, **kw: Any) -> Registration:
    req = Register(tournament_id=tid, account_id=who, owner_id=who, **kw)
    return await call(bus, subjects.TOURNAMENT_REGISTER, req, Registration, timeout=10)


async def available(bus: NatsBroker, who: str) -> int:
    return (await call(bus, subjects.WALLET_BALANCE, BalanceQuery(account_id=who), Balance)).available


async def pool(bus: NatsBroker, tid: str) -> PoolState:
    return await call(bus, subjects.WALLET_POOL, PoolQuery(pool_id=tid), PoolState)
