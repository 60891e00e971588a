"""Browser fixtures: Debian's chromium driven by Playwright (never a downloaded browser) against
the real room — wallet, limits, timer, chat, table and the gateway as processes on a NATS,
Valkey and SQLite of their own. Without /usr/bin/chromium every browser test skips, saying so."""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.table import CreateTable, StartMode, TableConfig, TableSummary
from felt_runtime.bus import call
from tests.browser.people import Person
from tests.gateway.conftest import nats_url, redis_url, repo_path, running_stack  # noqa: F401 - fixtures
from tests.support.gateway import Stack

CHROMIUM = os.environ.get("FELT_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
#: screenshots for people to look at (git-ignored)
ARTIFACTS = repo_path() / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="package")
def chromium() -> str:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(
            f"browser tests need Chromium at {CHROMIUM} (Debian: apt-get install chromium; or set FELT_TEST_CHROMIUM)"
        )
    try:
        import playwright  # noqa: F401 - only whether it is installed
    except ImportError:
        pytest.skip("browser tests need the playwright package (pip install -e '.[dev]')")
    return CHROMIUM


@pytest.fixture(scope="package")
def room(chromium: str, nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The room with its default lobby (what a newcomer sees), a short disconnect grace, and a
    short intermission at the tables people create (20 hands of a home game in minutes)."""
    workdir = tmp_path_factory.mktemp("browser")
    db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    table = {
        "FELT_TABLE_DEFAULT_TABLES": "true",
        "FELT_TABLE_GRACE_SECONDS": "12",
        "FELT_TABLE_INTERMISSION_SECONDS": "3",
    }
    env = {"table": table}
    with running_stack(nats_url, redis_url, workdir, db, **env) as stack:
        yield stack


@pytest.fixture(scope="package")
def browser(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)  # what a person waits for; generous for a loaded 2-core box
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[Any]:
    report = yield
    if report.when == "call":
        item.failed_call = report.failed  # type: ignore[attr-defined]  # an item takes ad-hoc attributes
    return report


@pytest.fixture
def people(request: pytest.FixtureRequest, browser: Any, room: Stack) -> Iterator[Callable[..., Person]]:
    """`people("alice", PHONE)`: a new browser context (its own session) on the room's page;
    when the test fails, each page's screenshot is kept as `failed-<test>-<name>`."""
    made: list[Person] = []

    def make(name: str, viewport: dict[str, int] = DESKTOP) -> Person:
        person = Person.open(browser, room.url, name, viewport)
        made.append(person)
        return person

    yield make
    for person in made:
        if getattr(request.node, "failed_call", False):
            shot(person, f"failed-{request.node.name}-{person.name}")
        person.close()


@pytest.fixture(scope="package")
def new_table(room: Stack, nats_url: str) -> Callable[..., str]:
    """Create a table for one test (auto-start, short intermission) and return its id."""

    async def create(config: TableConfig) -> None:
        broker = NatsBroker(nats_url)
        await broker.connect()
        try:
            await call(broker, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
        finally:
            await broker.stop()

    def make(**cfg: Any) -> str:
        table_id = f"b{uuid.uuid4().hex[:8]}"
        defaults = dict(
            name="Browser hold'em 1/2",
            rules_version="nlhe-1",
            small_blind=1,
            big_blind=2,
            min_buy_in=20,
            max_buy_in=100,
            seats=6,
            start_mode=StartMode.AUTO,
            intermission_seconds=4,
            turn_seconds=25,
        )
        config = TableConfig(table_id=table_id, **{**defaults, **cfg})
        with ThreadPoolExecutor(1) as pool:  # Playwright's sync API keeps an event loop in this thread
            pool.submit(asyncio.run, create(config)).result()
        return table_id

    return make


def shot(person: Person, name: str) -> Path:
    """A full-page screenshot in test-artifacts/ (`<name>-<desktop|phone>.png`)."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = "phone" if person.page.viewport_size["width"] < 600 else "desktop"
    path = ARTIFACTS / f"{name}-{size}.png"
    person.page.evaluate("window.scrollTo(0, 0)")
    person.page.screenshot(path=str(path), full_page=True)
    return path
