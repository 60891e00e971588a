"""A room like the security tests' (tests/security/conftest.py), with NATS's monitoring port
open, so a test can count the subscriptions each client holds (`/connz?subs=detail`)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import httpx
import pytest

from felt_runtime import infra
from tests.gateway import conftest as gw
from tests.security.conftest import Room, bus, http  # noqa: F401 - fixtures
from tests.support.servers import redis_server


class MonitoredRoom(Room):
    monitor: int = 0

    def subscriptions(self, prefix: str) -> int:
        """Subscriptions on subjects starting with `prefix`, over every client connection."""
        conns = httpx.get(
            f"http://127.0.0.1:{self.monitor}/connz", params={"subs": "detail", "limit": 1000}, timeout=5
        ).json()
        return sum(
            1
            for c in conns.get("connections", [])
            for s in c.get("subscriptions_list_detail", [])
            if s["subject"].startswith(prefix)
        )


@pytest.fixture(scope="package")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MonitoredRoom]:
    logs = tmp_path_factory.mktemp("fuzz")
    port, monitor = infra.free_port(), infra.free_port()
    (logs / "nats").mkdir()
    nats = subprocess.Popen(
        [
            str(infra.nats_binary()),
            "-a",
            "127.0.0.1",
            "-p",
            str(port),
            "-m",
            str(monitor),
            "-js",
            "-sd",
            str(logs / "nats"),
        ],
        stdout=(logs / "nats.log").open("ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        infra._wait_listening("nats-server", nats, port, logs / "nats.log", 15)
        url = f"nats://127.0.0.1:{port}"
        with (
            redis_server(logs) as redis,
            gw.running_stack(url, redis, logs, f"sqlite+aiosqlite:///{logs / 'felt.sqlite'}") as stack,
        ):
            if not stack.has("table"):
                pytest.skip("the table service is not running")
            room = MonitoredRoom(stack, url, redis, logs)
            room.monitor = monitor
            yield room
    finally:
        infra.stop_process(nats, 10)
