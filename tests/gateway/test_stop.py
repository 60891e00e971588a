"""A gateway that is stopped answers its waiting long-polls at once (with what they have) and
exits, instead of holding the stop for each long-poll's whole wait: a Ctrl-C of `make run` took
9.7 s, all of it the gateway waiting for the bots' long-polls (`felt_runtime.service`'s
stopping hooks)."""

from __future__ import annotations

import asyncio
import signal
import time

import httpx
import pytest

from tests.gateway.conftest import READY_SECONDS, extra_env
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture
from tests.support.gateway import Stack, create_table, new_agent, sign_up

WAIT = 30  # seconds the long-poll asks to wait: the longest the gateway allows
STOPPED_WITHIN = 5.0  # seconds from SIGTERM to the answer and to the process's exit


async def test_a_stopping_gateway_answers_its_long_polls_at_once(stack: Stack, bus) -> None:
    if not stack.database_url.startswith("sqlite"):
        pytest.skip("the same HTTP server whatever the database")
    second = stack.runner.start("gateway", database_url=stack.database_url, ready=False, **extra_env("gateway"))
    second.wait_ready(READY_SECONDS)
    table_id = await create_table(bus)
    async with httpx.AsyncClient(base_url=second.url, timeout=60) as http:
        agent = await new_agent(http, await sign_up(http))
        path = f"/api/v2/poker/tables/{table_id}/events"
        after = (await http.get(path, params={"after": 0}, headers=agent["headers"])).json()["lastSeq"]
        poll = asyncio.create_task(http.get(path, params={"after": after, "wait": WAIT}, headers=agent["headers"]))
        await asyncio.sleep(1.0)
        assert not poll.done(), "the long-poll did not wait"
        assert second.process is not None
        stopped = time.monotonic()
        second.process.send_signal(signal.SIGTERM)
        answer = await asyncio.wait_for(poll, STOPPED_WITHIN)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"tableId": table_id, "after": after, "lastSeq": after, "events": []}
        exit_code = await asyncio.to_thread(second.process.wait, STOPPED_WITHIN)
    assert exit_code == -signal.SIGTERM  # uvicorn ends by the signal it stopped for
    assert time.monotonic() - stopped < STOPPED_WITHIN
