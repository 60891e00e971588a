"""Table tests: wallet, limits, timer and the table run as real subprocesses (one stack per
module, SQLite files of their own) against the session's real NATS and Redis; each test makes
tables of its own through the operators' CreateTable command."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pytest

from felt_contracts import subjects
from felt_contracts.table import CreateTable, TableConfig, TableRequest, TableResult, TableSummary
from felt_contracts.wallet import AccountOpened, Balance, BalanceQuery, OpenAccount
from felt_runtime.bus import call, make_broker
from felt_runtime.db import create_engine
from tests.support.proxy import ReplyHoldingProxy
from tests.support.services import ServiceProcess, ServiceRunner

TABLE_ENV = dict(
    felt_table_default_tables="false",
    felt_table_turn_seconds="30",
    felt_table_grace_seconds="0.5",
    felt_table_intermission_seconds="0.05",
    felt_timer_poll_seconds="0.02",
)


def start_stack(
    runner: ServiceRunner,
    database_url: str = "",
    *,
    wallet_nats_url: str = "",
    base: dict[str, str] = TABLE_ENV,
    **env: str,
) -> dict[str, ServiceProcess]:
    """Wallet, limits, timer, then the table (`env`: the table's own settings; `wallet_nats_url`:
    where the wallet connects, e.g. through a proxy)."""
    procs = {}
    for name in ("wallet", "limits", "timer"):  # started together (each boots in its own process)
        via = {"felt_nats_url": wallet_nats_url} if name == "wallet" and wallet_nats_url else {}
        procs[name] = runner.start(name, database_url=database_url, ready=False, **base, **via)
    for proc in procs.values():
        proc.wait_ready()
    procs["table"] = runner.start("table", database_url=database_url, **{**base, **env})
    return procs


@pytest.fixture(scope="module")
def stack(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("tablestack"))
    try:  # a stack that failed to start is stopped too (a stray wallet would answer other tests)
        yield start_stack(runner)
    finally:
        runner.stop_all()


CALL_TIMEOUT = 1.0  # the money stack's call timeout to wallet/limits/timer (SIGSTOP tests stay short)
MONEY_ENV = {
    **TABLE_ENV,
    "felt_table_call_timeout": str(CALL_TIMEOUT),
    # its auto tables play themselves by turn timeouts: two in a row would sit a seat out and
    # stop the table (a wallet kill that landed a hand later once left nothing to deal)
    "felt_table_absent_timeouts": "100",
}


@dataclass
class MoneyStack:
    """Services of the money tests: the wallet talks to NATS through a `ReplyHoldingProxy`."""

    procs: dict[str, ServiceProcess]
    database_url: str
    proxy: ReplyHoldingProxy

    def __getitem__(self, name: str) -> ServiceProcess:
        return self.procs[name]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def money_stack(
    request: pytest.FixtureRequest,
    nats_url: str,
    redis_url: str,
    postgres: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MoneyStack]:
    """One stack per database for a module (SQLite, then PostgreSQL when FELT_TEST_POSTGRES_URL is set)."""
    work = tmp_path_factory.mktemp(f"money-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{work / 'felt.sqlite'}"
    elif postgres is None:
        pytest.skip("FELT_TEST_POSTGRES_URL is not set (CI sets it to the local PostgreSQL)")
    else:
        url = asyncio.run(postgres.create())
    u = urlparse(nats_url)
    proxy = ReplyHoldingProxy((u.hostname or "127.0.0.1", u.port or 4222))
    runner = ServiceRunner(nats_url, redis_url, work)
    try:
        procs = start_stack(runner, url, wallet_nats_url=proxy.url, base=MONEY_ENV)
        yield MoneyStack(procs, url, proxy)
    finally:
        runner.stop_all()
        proxy.close()


@pytest.fixture
async def ledger_db(money_stack: MoneyStack) -> AsyncIterator[Any]:
    """The money stack's database (the wallet's tables are read directly)."""
    engine = create_engine(money_stack.database_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Any]:
    broker = make_broker(nats_url, "table-test")
    await broker.connect()
    yield broker
    await broker.stop()


def uid(prefix: str = "p") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


async def create_table(bus: Any, **cfg: Any) -> str:
    table_id = cfg.pop("table_id", None) or uid("t")
    defaults: dict[str, Any] = dict(
        rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=100, seats=6
    )
    if cfg.get("rules_version") == "ante-nl-1":
        defaults = dict(ante=10, seats=10, start_mode="auto")
    config = TableConfig(table_id=table_id, **{**defaults, **cfg})
    await call(bus, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
    return table_id


async def player(bus: Any, pid: str | None = None, owner: str | None = None) -> tuple[str, str]:
    pid = pid or uid("p")
    await call(
        bus, subjects.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=pid, owner_id=owner or f"o-{pid}"), AccountOpened
    )
    return pid, owner or f"o-{pid}"


async def cmd(bus: Any, table_id: str, command: Any, timeout: float = 10.0) -> TableResult:
    return await call(
        bus,
        subjects.table_command(table_id),
        TableRequest(table_id=table_id, command=command),
        TableResult,
        timeout=timeout,
    )


async def balance(bus: Any, pid: str) -> Balance:
    return await call(bus, subjects.WALLET_BALANCE, BalanceQuery(account_id=pid), Balance)
