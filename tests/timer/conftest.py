"""Timer test fixtures: one shared timer process for functional tests (each test uses its own
owner, so keys never collide), a bus client, and a collector of fired events."""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import nats
import pytest
from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.timer import DeadlineScheduled, ScheduleDeadline
from felt_runtime.bus import call
from tests.support.services import ServiceProcess, ServiceRunner

#: How late a deadline may fire, and how long a test waits for one, on a loaded shared machine.
#: Never early is asserted exactly; lateness only against this generous bound.
LATE = float(os.environ.get("FELT_TEST_TIMER_LATENESS", "1.5"))
WAIT = 10.0


def start_timer(runner: ServiceRunner, prefix: str, **env: str) -> ServiceProcess:
    return runner.start("timer", felt_timer_prefix=prefix, **env)


@pytest.fixture(scope="module")
def timer(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    """One timer process shared by a test module (its own Redis prefix)."""
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("timer"))
    proc = start_timer(runner, f"t-{uuid.uuid4().hex[:8]}")
    yield proc
    runner.stop_all()


@pytest.fixture
def owner() -> str:
    """A fresh owner per test: fired events go to felt.evt.timer.fired.<owner>."""
    return "o" + uuid.uuid4().hex[:12]


@dataclass
class Collector:
    """Every message received on a subject, with its arrival time (monotonic)."""

    received: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e for _, e in self.received]

    async def wait_for(self, count: int, timeout: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return self.events


@pytest.fixture
async def listen(nats_url: str):
    """`fired = await listen(subjects.timer_fired(owner))` collects events on a subject."""
    nc = await nats.connect(nats_url)

    async def subscribe(subject: str) -> Collector:
        collector = Collector()

        async def on_msg(msg) -> None:
            collector.received.append((time.monotonic(), json.loads(msg.data)))

        await nc.subscribe(subject, cb=on_msg)
        await nc.flush()
        return collector

    yield subscribe
    await nc.close()


async def schedule(broker: NatsBroker, **fields: Any) -> DeadlineScheduled:
    return await call(broker, subjects.TIMER_SCHEDULE, ScheduleDeadline(**fields), DeadlineScheduled)
