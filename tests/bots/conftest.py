"""One room for the client and bots tests: wallet, limits, timer, chat, table and gateway as
processes on a NATS and Valkey of their own, with short clocks (5 s turns, 1 s intermission,
a 2 s chat window) so a test plays many hands; SQLite. `room.restart_table()` crashes the table
service (kill -9) and starts it again."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from faststream.nats import NatsBroker

from felt_client import FeltClient
from felt_contracts import subjects
from felt_contracts.table import CreateTable, TableConfig, TableSummary
from felt_runtime.bus import call
from tests.support.servers import connected, nats_server, redis_server
from tests.support.services import ServiceProcess, ServiceRunner

SERVICES = ("wallet", "limits", "timer", "chat", "table")
#: lobby tables (from a tables file, so they come back after a restart of the table service)
LOBBY = [
    TableConfig(table_id=t, rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=200, seats=6)
    for t in ("e2e-play", "e2e-crash", "e2e-cli")
]
ENV = {
    "table": {
        "FELT_TABLE_DEFAULT_TABLES": "false",
        "FELT_TABLE_TURN_SECONDS": "5",
        "FELT_TABLE_INTERMISSION_SECONDS": "1",
        "FELT_TABLE_MATCHES_PER_DAY": "2",  # test_ladder.py reaches the cap
    },
    "chat": {"FELT_CHAT_MAX_MESSAGES": "2", "FELT_CHAT_WINDOW_SECONDS": "2"},
    "wallet": {"FELT_WALLET_GRANT": "100000"},
    "gateway": {"FELT_GATEWAY_AUTH_CACHE_SECONDS": "1"},
}
#: how long the bots service holds a match's bot for the gateway's next step (test_ladder.py waits it out)
MATCH_HOLD_SECONDS = 2.0


@dataclass
class Room:
    runner: ServiceRunner
    procs: dict[str, ServiceProcess]
    nats_url: str
    database_url: str

    @property
    def url(self) -> str:
        return self.procs["gateway"].url

    def restart_table(self) -> None:
        """Crash the table service (no shutdown hooks) and start it again."""
        table = self.procs["table"]
        table.kill9()
        table.start()
        table.wait_ready()


@pytest.fixture(scope="package")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    tmp = tmp_path_factory.mktemp("bots-room")
    with nats_server(tmp / "nats") as nats_url, redis_server(tmp / "redis") as redis_url:
        runner = ServiceRunner(nats_url, redis_url, tmp)
        db = f"sqlite+aiosqlite:///{tmp / 'felt.sqlite'}"
        lobby = tmp / "tables.json"
        lobby.write_text(json.dumps([t.model_dump(mode="json") for t in LOBBY]))
        env = {**ENV, "table": {**ENV["table"], "FELT_TABLE_TABLES_FILE": str(lobby)}}
        try:
            procs = {name: runner.start(name, database_url=db, ready=False, **env.get(name, {})) for name in SERVICES}
            for proc in procs.values():
                proc.wait_ready(timeout=90)  # a loaded machine imports slowly
            procs["gateway"] = runner.start("gateway", database_url=db, **ENV["gateway"])
            yield Room(runner, procs, nats_url, db)
        finally:
            runner.stop_all()


@pytest.fixture
async def bus(room: Room) -> AsyncIterator[NatsBroker]:
    async with connected(room.nats_url) as broker:
        yield broker


async def create_table(bus: NatsBroker, **cfg: Any) -> str:
    """A fresh table (nlhe-1 1/2, buy-in 20-200, 6 seats unless `cfg` says otherwise)."""
    table_id = f"b{uuid.uuid4().hex[:10]}"
    base = dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=200, seats=6)
    await call(
        bus, subjects.TABLE_CREATE, CreateTable(config=TableConfig(table_id=table_id, **{**base, **cfg})), TableSummary
    )
    return table_id


async def new_agent(room: Room, name: str = "agent") -> tuple[FeltClient, FeltClient]:
    """A new owner (logged in) and one agent of it: (owner client, agent client)."""
    owner = FeltClient(room.url)
    email, password = f"o{uuid.uuid4().hex[:12]}@example.org", "correct horse battery"
    await owner.sign_up(email, password)
    await owner.log_in(email, password)
    key = await owner.create_agent(name)
    return owner, FeltClient(room.url, api_key=key.api_key)


@pytest.fixture(scope="module")
def bots_service(room: Room) -> Iterator[ServiceProcess]:
    proc = room.runner.start(
        "bots",
        FELT_BOTS="0",
        FELT_BOTS_GATEWAY_URL=room.url,
        FELT_BOTS_THINK_SECONDS="0",
        FELT_BOTS_PAUSE_SECONDS="0.1",
        FELT_BOTS_BROKE_RECHECK_SECONDS="1",
        FELT_BOTS_MATCH_HOLD_SECONDS=str(MATCH_HOLD_SECONDS),
        ready=False,
    )
    proc.wait_ready(timeout=90)  # a loaded machine imports slowly
    yield proc
    proc.stop()
