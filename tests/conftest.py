"""Session fixtures: real NATS (JetStream), a real Redis-protocol server, real databases.

Database tests take the `database_url` fixture, which runs each test on SQLite and on
PostgreSQL (FELT_TEST_POSTGRES_URL; skipped with a reason when it is not set). Each test gets
a database of its own, so runs and tests cannot collide.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from faststream.nats import NatsBroker

from tests.support.servers import PostgresDatabases, connected, nats_server, redis_server
from tests.support.services import ServiceRunner
from tools.compile_engine import stale


def pytest_sessionstart(session: pytest.Session) -> None:
    """Never test an engine compiled from other sources than the ones in the tree."""
    why = stale()
    if why:
        pytest.exit(f"{why}: run `make install` (or .venv/bin/python tools/compile_engine.py)", returncode=4)


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with nats_server(tmp_path_factory.mktemp("nats")) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresDatabases | None]:
    base = os.environ.get("FELT_TEST_POSTGRES_URL")
    if not base:
        yield None
        return
    dbs = PostgresDatabases(base)
    yield dbs
    import asyncio

    asyncio.run(dbs.drop_all())


@pytest.fixture(params=["sqlite", "postgres"])
async def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, postgres: PostgresDatabases | None
) -> AsyncIterator[str]:
    """A fresh empty database: a SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}"
        return
    if postgres is None:
        pytest.skip("FELT_TEST_POSTGRES_URL is not set (CI sets it to the local PostgreSQL)")
    yield await postgres.create()


@pytest.fixture
async def broker(nats_url: str) -> AsyncIterator[NatsBroker]:
    """A connected FastStream NATS client for `felt_runtime.bus.call`."""
    async with connected(nats_url) as b:
        yield b


@pytest.fixture
def services(nats_url: str, redis_url: str, tmp_path: Path) -> Iterator[ServiceRunner]:
    """Start services as subprocesses: `services.start("wallet", database_url=...)`."""
    runner = ServiceRunner(nats_url, redis_url, tmp_path)
    yield runner
    runner.stop_all()


#: folders whose tests share one stack of services per worker and must run on one worker
#: (the gateway's OpenAPI coverage test counts what the other gateway tests exercised; the
#: browser tests share one room, and so do the bots, security and fuzz tests)
ONE_WORKER_FOLDERS = {"gateway", "browser", "bots", "security", "fuzz"}


#: the longest groups (seconds on 2 cores, measured in one full run), handed out first so that
#: the workers finish together instead of one running a 3-minute file at the end (make test
#: passes --no-loadscope-reorder: xdist would otherwise start with the groups of the most tests)
LONGEST_FIRST = (
    "gateway",
    "browser",
    "bots",
    "tests/tournament/test_multi_table_crash.py",
    "tests/runtime/test_felt_up.py",
    "tests/table/test_chaos.py",
    "tests/tournament/test_multi_table.py",
    "fuzz",
    "tests/runtime/test_service.py",
    "tests/table/test_hosted.py",
    "tests/table/test_hand_end.py",
    "tests/table/test_random_play.py",
    "tests/engine/test_evaluator.py",
    "tests/chaos/test_chaos_room.py",
    "tests/runtime/test_migrate.py",
    "tests/tournament/test_sit_and_go.py",
    "tests/limits/test_read_cache.py",
    "tests/tournament/test_bots_fill.py",
    "security",
    "tests/scale/test_table_replicas.py",
    "tests/scale/test_two_gateways.py",
    "tests/table/test_restart.py",
    "tests/timer/test_durability.py",
)


def _group(item: pytest.Item) -> str:
    folder = item.path.parent.name
    return folder if folder in ONE_WORKER_FOLDERS else str(item.path.relative_to(item.config.rootpath))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {g: i for i, g in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_group(item), len(rank)))  # stable: the rest keep their order


def pytest_itemcollected(item: pytest.Item) -> None:
    """Under `pytest -n` with `--dist loadgroup`: a folder in ONE_WORKER_FOLDERS is one
    group, every other file is its own group (its module fixtures start once). Marked at
    collection, before xdist turns the marks into node-id suffixes."""
    if item.get_closest_marker("xdist_group") is None:
        item.add_marker(pytest.mark.xdist_group(_group(item)))
