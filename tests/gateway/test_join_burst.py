"""A burst of joins (a room opening, a reconnect storm) is queued and served, not refused with
503: through a gateway whose bus timeout is short (1 s) while the wallet is stopped (SIGSTOP)
for longer, every one of a burst of joins arrives seated once the wallet is back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from faststream.nats import NatsBroker

from tests.gateway.conftest import running_stack
from tests.support.gateway import Stack, sign_up
from tests.support.pausing import paused
from tests.support.servers import nats_server, redis_server
from tests.support.gateway import create_table

PAUSE = 2.5  # seconds the wallet is stopped: past the gateway's 1 s bus timeout, within the table's 5 s


@pytest.fixture(scope="module")
def burst_nats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A NATS of this module's own: the package stack's services (same queue groups) must not answer."""
    with nats_server(tmp_path_factory.mktemp("burst-nats")) as url:
        yield url


@pytest.fixture(scope="module")
def short_stack(burst_nats: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("gw-burst")
    with (
        redis_server(tmp_path_factory.mktemp("burst-redis")) as redis_url,
        running_stack(
            burst_nats,
            redis_url,
            workdir,
            f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}",
            gateway={"FELT_REQUEST_TIMEOUT": "1", "FELT_GATEWAY_JOIN_SLOTS": "4"},
        ) as started,
    ):
        yield started


async def test_a_burst_of_joins_is_queued_and_served(short_stack, burst_nats) -> None:
    if not short_stack.has("table"):
        pytest.skip("the table service is not running")
    broker = NatsBroker(burst_nats)
    await broker.connect()
    async with httpx.AsyncClient(base_url=short_stack.url, timeout=60) as http:
        owners = [await sign_up(http) for _ in range(12)]
        tables = [await create_table(broker, admission="MIXED") for _ in range(3)]
        with paused(short_stack.procs["wallet"].process):
            burst = [
                http.post(f"/api/v2/poker/tables/{tables[k % 3]}/join", json={"buyIn": 100}, headers=o["headers"])
                for k, o in enumerate(owners)
            ]
            pending = asyncio.gather(*burst)
            await asyncio.sleep(PAUSE)
        answers = await pending
    await broker.stop()
    assert [r.status_code for r in answers] == [200] * len(owners), [r.text for r in answers if r.status_code != 200]
    assert sorted(r.json()["seat"] for r in answers) == sorted([1, 2, 3, 4] * 3)
