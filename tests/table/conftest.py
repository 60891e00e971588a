"""Table tests: wallet, limits, timer and the table run as real subprocesses (one stack per
module, SQLite files of their own) against the session's real NATS and Redis; each test makes
tables of its own through the operators' CreateTable command."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from felt_contracts import subjects
from felt_contracts.table import CreateTable, TableConfig, TableRequest, TableResult, TableSummary
from felt_contracts.wallet import AccountOpened, Balance, BalanceQuery, OpenAccount
from felt_runtime.bus import call, make_broker
from tests.support.services import ServiceRunner

TABLE_ENV = dict(felt_table_default_tables="false", felt_table_turn_seconds="30", felt_table_grace_seconds="0.5",
                 felt_table_intermission_seconds="0.05", felt_timer_poll_seconds="0.02")


def start_stack(runner: ServiceRunner, database_url: str = "", **env: str) -> dict[str, Any]:
    procs = {}
    for name in ("wallet", "limits", "timer"):  # started together (each boots in its own process)
        procs[name] = runner.start(name, database_url=database_url, ready=False, **TABLE_ENV)
    for proc in procs.values():
        proc.wait_ready()
    procs["table"] = runner.start("table", database_url=database_url, **{**TABLE_ENV, **env})
    return procs


@pytest.fixture(scope="module")
def stack(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("tablestack"))
    procs = start_stack(runner)
    yield procs
    runner.stop_all()


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
    defaults: dict[str, Any] = dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20,
                                    max_buy_in=100, seats=6)
    if cfg.get("rules_version") == "ante-nl-1":
        defaults = dict(ante=10, seats=10, start_mode="auto")
    config = TableConfig(table_id=table_id, **{**defaults, **cfg})
    await call(bus, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
    return table_id


async def player(bus: Any, pid: str | None = None, owner: str | None = None) -> tuple[str, str]:
    pid = pid or uid("p")
    await call(bus, subjects.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=pid, owner_id=owner or f"o-{pid}"),
               AccountOpened)
    return pid, owner or f"o-{pid}"


async def cmd(bus: Any, table_id: str, command: Any, timeout: float = 10.0) -> TableResult:
    return await call(bus, subjects.table_command(table_id), TableRequest(table_id=table_id, command=command),
                      TableResult, timeout=timeout)


async def balance(bus: Any, pid: str) -> Balance:
    return await call(bus, subjects.WALLET_BALANCE, BalanceQuery(account_id=pid), Balance)
