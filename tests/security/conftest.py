"""One real room for the security tests: NATS, Valkey, and wallet, limits, timer, chat, table and
the gateway as processes (SQLite), every log in one folder (`Room.logs`). Every secret a test
is handed (passwords, login tokens, API keys) is remembered in `SECRETS`, so that the log test
can check that none of them was ever written by any process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from faststream.nats import NatsBroker

from tests.gateway import conftest as gw
from tests.support import gateway as room_helpers
from tests.support.servers import connected, nats_server, redis_server

#: every password, token and API key handed out in this folder's room
SECRETS: set[str] = set()
PASSWORD = "correct horse battery"


@dataclass
class Room:
    stack: room_helpers.Stack
    nats_url: str
    redis_url: str
    logs: Path

    @property
    def url(self) -> str:
        return self.stack.url

    @property
    def ws_url(self) -> str:
        return self.stack.ws_url


@pytest.fixture(scope="package")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    logs = tmp_path_factory.mktemp("security")
    with (
        nats_server(logs) as nats,
        redis_server(logs) as redis,
        gw.running_stack(nats, redis, logs, f"sqlite+aiosqlite:///{logs / 'felt.sqlite'}") as stack,
    ):
        if not stack.has("table"):
            pytest.skip("the table service is not running")
        yield Room(stack, nats, redis, logs)


@pytest.fixture
async def http(room: Room) -> AsyncIterator[gw.Client]:
    async with gw.Client(base_url=room.url, timeout=30) as client:
        yield client


@pytest.fixture
async def bus(room: Room) -> AsyncIterator[NatsBroker]:
    async with connected(room.nats_url) as broker:
        yield broker


async def owner(http) -> dict:
    """A new owner, logged in (its password and token remembered as secrets)."""
    who = await room_helpers.sign_up(http, PASSWORD)
    SECRETS.update({PASSWORD, who["token"]})
    return who


async def agent(http, of: dict, name: str = "bot") -> dict:
    """A new agent of `of` (its API key remembered as a secret)."""
    made = await room_helpers.new_agent(http, of, name)
    SECRETS.add(made["apiKey"])
    return made
