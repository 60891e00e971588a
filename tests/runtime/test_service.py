"""The standard service runtime: health over HTTP and the bus, error replies, bad config."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.health import HealthRequest, HealthStatus
from felt_runtime.bus import BusError, call
from felt_runtime.infra import free_port
from felt_runtime.settings import DEFAULT_NATS_PORT, DEFAULT_REDIS_PORT, Settings
from tests.support.demo import Echo, Echoed
from tests.support.services import REPO

DEMO = "tests.support.demo"


async def test_service_reports_health_over_http_and_bus(services, database_url, broker) -> None:
    svc = services.start("demo", module=DEMO, database_url=database_url)
    assert httpx.get(f"{svc.url}/healthz").status_code == 200
    ready = httpx.get(f"{svc.url}/readyz").json()
    assert ready["status"] == "ok"
    assert ready["checks"] == {"nats": "ok", "database": "ok", "redis": "ok"}
    status = await call(broker, subjects.health("demo"), HealthRequest(), HealthStatus)
    assert status.service == "demo" and status.status == "ok"


async def test_migrations_ran_and_rerun_is_harmless(services, database_url, broker) -> None:
    svc = services.start("demo", module=DEMO, database_url=database_url)
    assert (await call(broker, "felt.demo.echo", Echo(text="hi"), Echoed)).rows == 0
    svc.restart()  # second start: migrations already at head, nothing breaks
    assert (await call(broker, "felt.demo.echo", Echo(text="again"), Echoed)).text == "again"


async def test_errors_are_replies_with_stable_codes(services, broker) -> None:
    services.start("demo", module=DEMO)
    with pytest.raises(BusError) as refused:
        await call(broker, "felt.demo.echo", Echo(text="x", fail="refuse"), Echoed)
    assert refused.value.code is ErrorCode.CONFLICT and refused.value.details == {"why": "test"}
    with pytest.raises(BusError) as crashed:
        await call(broker, "felt.demo.echo", Echo(text="x", fail="crash"), Echoed)
    assert crashed.value.code is ErrorCode.INTERNAL
    for bad in (b"not json{", b'{"text": 5}', b'{"text": "x", "surprise": 1}'):
        reply = await broker.request(bad, "felt.demo.echo", timeout=5)
        body = await reply.decode()
        assert body["ok"] is False and body["error"]["code"] == "malformed"


async def test_nobody_listening_is_unavailable(broker) -> None:
    with pytest.raises(BusError) as err:
        await call(broker, "felt.nobody.home", Echo(text="x"), Echoed, timeout=1)
    assert err.value.code is ErrorCode.UNAVAILABLE


def _start_with(
    env_overrides: dict[str, str], nats_url: str, redis_url: str, tmp_path, module: str = DEMO
) -> subprocess.CompletedProcess:
    env = dict(os.environ, FELT_NATS_URL=nats_url, FELT_REDIS_URL=redis_url, FELT_VAR_DIR=str(tmp_path))
    env.setdefault("FELT_HTTP_PORT", str(free_port()))
    env.update(env_overrides)
    return subprocess.run([sys.executable, "-m", module], env=env, cwd=REPO, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(
    ("override", "setting"),
    [
        ({"FELT_NATS_URL": "nats://127.0.0.1:1"}, "FELT_NATS_URL"),
        ({"FELT_NATS_URL": "http://nope"}, "FELT_NATS_URL"),
        ({"FELT_DATABASE_URL": "not a url"}, "FELT_DATABASE_URL"),
        ({"FELT_DATABASE_URL": "postgresql+asyncpg://nobody@127.0.0.1:1/x"}, "FELT_DATABASE_URL"),
        ({"FELT_REDIS_URL": "redis://127.0.0.1:1/0"}, "FELT_REDIS_URL"),
        ({"FELT_HTTP_PORT": "70000"}, "FELT_HTTP_PORT"),
    ],
)
def test_bad_configuration_is_one_line_naming_the_setting(override, setting, nats_url, redis_url, tmp_path) -> None:
    started = time.monotonic()
    done = _start_with(override, nats_url, redis_url, tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("felt-demo: " + setting)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(
    ("service", "setting"),
    [
        ("table", "FELT_TABLE_TURN_SECONDS"),
        ("wallet", "FELT_WALLET_GRANT"),
        ("gateway", "FELT_GATEWAY_TOKEN_TTL_SECONDS"),
        ("limits", "FELT_LIMITS_DEFAULT_DAILY_BUY_IN"),
        ("chat", "FELT_CHAT_MAX_MESSAGES"),
        ("timer", "FELT_TIMER_POLL_SECONDS"),
        ("bots", "FELT_BOTS_THINK_SECONDS"),
        ("bots", "FELT_BOTS"),  # how many bots: a setting without the prefix (an alias)
        ("bots", "FELT_BOTS_COUNT"),  # its other name, named as written
    ],
)
def test_every_service_names_its_own_bad_setting_in_one_line(service, setting, nats_url, redis_url, tmp_path) -> None:
    done = _start_with({setting: "abc"}, nats_url, redis_url, tmp_path, module=f"felt_{service}")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()], done.stderr
    assert done.stderr.startswith(f"felt-{service}: {setting}: ")


def test_a_plain_postgresql_url_works(services, broker, postgres) -> None:
    """The form operators write (`postgresql://…`) runs on the installed async driver."""
    if postgres is None:
        pytest.skip("FELT_TEST_POSTGRES_URL is not set (CI sets it to the local PostgreSQL)")
    plain = asyncio.run(postgres.create()).replace("postgresql+asyncpg://", "postgresql://", 1)
    svc = services.start("demo", module=DEMO, database_url=plain)
    assert httpx.get(f"{svc.url}/readyz").json()["checks"]["database"] == "ok"


def test_another_database_driver_is_one_line_saying_what_to_write(nats_url, redis_url, tmp_path) -> None:
    done = _start_with({"FELT_DATABASE_URL": "postgresql+psycopg2://u@127.0.0.1/x"}, nats_url, redis_url, tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "FELT_DATABASE_URL" in done.stderr and "postgresql://" in done.stderr


def test_port_offset_moves_the_default_nats_and_valkey_urls(monkeypatch) -> None:
    """`felt service NAME` in a room started with FELT_PORT_OFFSET finds that room's servers."""
    for name in ("FELT_NATS_URL", "FELT_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FELT_PORT_OFFSET", "3000")
    shifted = Settings()
    assert shifted.nats_url == f"nats://127.0.0.1:{DEFAULT_NATS_PORT + 3000}"
    assert shifted.redis_url == f"redis://127.0.0.1:{DEFAULT_REDIS_PORT + 3000}/0"
    monkeypatch.setenv("FELT_NATS_URL", "nats://127.0.0.1:4999")
    assert Settings().nats_url == "nats://127.0.0.1:4999"  # an explicit URL is kept


def test_port_in_use_is_one_line(nats_url, redis_url, tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = _start_with({"FELT_HTTP_PORT": str(taken.getsockname()[1])}, nats_url, redis_url, tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("felt-demo: FELT_HTTP_PORT")


def test_sigterm_stops_gracefully(services) -> None:
    svc = services.start("demo", module=DEMO)
    svc.stop()
    # uvicorn finishes the lifespan shutdown, then re-raises the signal it caught
    assert svc.process is not None and svc.process.returncode in (0, -15)
    assert "Application shutdown complete" in svc.tail()
    assert '"level": "ERROR"' not in svc.tail()


@pytest.mark.parametrize(("setting", "value"), [("FELT_PORT_OFFSET", "abc"), ("FELT_NATS_URL", "http://x")])
def test_the_felt_command_names_a_bad_setting_in_one_line(setting, value) -> None:
    env = {**os.environ, setting: value}
    done = subprocess.run(
        [sys.executable, "-m", "felt_runtime.cli", "services"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"felt-cli: {setting}: ")
