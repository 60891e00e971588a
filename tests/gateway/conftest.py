"""Gateway fixtures: one stack of real services per database (SQLite, then
PostgreSQL): wallet, limits, chat, timer and table when installed, and the gateway — all as
processes on a NATS and Redis of their own. Clients use httpx against the real uvicorn port.

Every gateway test runs on the SQLite stack; those in POSTGRES_TOO run on the PostgreSQL stack
as well. The services' own tests run each on both databases; over REST, what the database
decides is the order of pages, the uniqueness of names and credentials and what hosting, the
ladder and refills keep — the rest of the room's behaviour is the same whatever the database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from felt_runtime import catalog
from tests.support.servers import nats_server, redis_server
from tests.support.gateway import Stack
from tests.support.services import ServiceProcess, ServiceRunner

#: every path the tests reach, as the OpenAPI template (the coverage test compares)
EXERCISED: set[tuple[str, str]] = set()


def installed(name: str) -> bool:
    return name in catalog.installed()


#: the modules whose tests also run on the PostgreSQL stack (see the module docstring)
POSTGRES_TOO = {
    "test_paging",
    "test_identity",
    "test_screen_names",
    "test_hosting",
    "test_ladder_routes",
    "test_refill",
    "test_credential_limits",
}


def sqlite_only(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    on_postgres = callspec is not None and callspec.params.get("stack") == "postgres"
    return on_postgres and item.path.parent.name == "gateway" and item.path.stem not in POSTGRES_TOO


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the PostgreSQL runs of the modules not in POSTGRES_TOO; the OpenAPI coverage
    check counts what the other gateway tests exercised: run it last (after pytest's own
    reordering by fixture parameters)."""
    left_out = [i for i in items if sqlite_only(i)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [i for i in items if not sqlite_only(i)]
    last = [i for i in items if i.name == "test_every_openapi_operation_is_exercised"]
    items[:] = [i for i in items if i not in last] + last


@pytest.fixture(scope="package")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The gateway stack's own NATS: its long-lived services (queue groups `felt-wallet`, ...)
    must never answer requests of other folders' tests that run later on this worker."""
    with nats_server(tmp_path_factory.mktemp("gw-nats")) as url:
        yield url


@pytest.fixture(scope="package")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("gw-redis")) as url:
        yield url


@pytest.fixture(scope="package", params=["sqlite", "postgres"])
def stack(
    request: pytest.FixtureRequest, nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory, postgres
) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("gw")
    if request.param == "sqlite":
        db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    else:
        if postgres is None:
            pytest.skip("FELT_TEST_POSTGRES_URL is not set (CI sets it to the local PostgreSQL)")
        db = asyncio.run(postgres.create())
    with running_stack(nats_url, redis_url, workdir, db, wallet=REFILLS) as started:
        yield started


#: every new account (200 chips) is below the refill threshold here, so tests/gateway/test_refill.py
#: can claim without losing chips first; a refill brings it to 300 (docs/wallet.md "Refills")
REFILLS = {"FELT_WALLET_REFILL_BELOW": "201", "FELT_WALLET_REFILL_TO": "300"}


#: five services importing at once on a loaded 2-core box can take well over 30 s to answer
READY_SECONDS = 90.0


@contextmanager
def running_stack(
    nats_url: str, redis_url: str, workdir: Path, db: str, *, more: tuple[str, ...] = (), **env: dict[str, str]
) -> Iterator[Stack]:
    """Wallet, limits, timer, chat, table, tournament and the gateway as processes, and the services in `more`
    (`env`: extra settings per service name, over `extra_env`); stopped on exit."""
    runner = ServiceRunner(nats_url, redis_url, workdir)
    procs: dict[str, ServiceProcess] = {}
    try:
        for name in ("wallet", "limits", "timer", "chat", "table", "tournament", *more):
            if installed(name):
                procs[name] = runner.start(
                    name, database_url=db, ready=False, **{**extra_env(name), **env.get(name, {})}
                )
        for name, proc in list(procs.items()):
            try:
                proc.wait_ready(READY_SECONDS)
            except RuntimeError:
                if name != "table":  # the table service may still be half-built in this tree
                    raise
                proc.stop()
                del procs[name]
        gw = runner.start("gateway", database_url=db, ready=False, **{**extra_env("gateway"), **env.get("gateway", {})})
        gw.wait_ready(READY_SECONDS)
        yield Stack(gw, runner, db, procs)
    finally:
        runner.stop_all()


#: the gateway's authentication cache TTL in the tests (shorter than the 5 s default so the
#: revocation-elsewhere test waits less; the behaviour is the same)
AUTH_CACHE_SECONDS = 2.0


def extra_env(name: str) -> dict[str, str]:
    if name == "gateway":
        return {"FELT_GATEWAY_AUTH_CACHE_SECONDS": str(AUTH_CACHE_SECONDS)}
    if name == "table":
        return {"FELT_TABLE_DEFAULT_TABLES": "false", "FELT_TABLE_TURN_SECONDS": "20", "FELT_TABLE_GRACE_SECONDS": "10"}
    return {}


class Client(httpx.AsyncClient):
    """httpx against the gateway that records which OpenAPI paths the tests reached."""

    async def request(self, method: str, url, *args, **kwargs):  # type: ignore[override]  # passes everything through to httpx
        response = await super().request(method, url, *args, **kwargs)
        EXERCISED.add((method.upper(), response.request.url.path))
        return response


@pytest.fixture
async def http(stack: Stack) -> AsyncIterator[Client]:
    async with Client(base_url=stack.url, timeout=30) as client:
        yield client


def repo_path() -> Path:
    return Path(__file__).resolve().parents[2]
