"""`felt up` (what `make run` calls): the whole room starts, reports healthy, stops on Ctrl-C,
and starts again on the same state."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from felt_runtime import catalog
from felt_runtime.infra import port_open
from tests.support.services import REPO

FELT = str(Path(sys.executable).parent / "felt")


def _env(tmp_path: Path, offset: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FELT_")}
    env.update(FELT_VAR_DIR=str(tmp_path / "var"), FELT_PORT_OFFSET=str(offset))
    return env


def _start(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([FELT, "up"], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_all_healthy(env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    deadline = time.monotonic() + timeout
    while True:
        done = subprocess.run([FELT, "status"], env=env, capture_output=True, text=True)
        if done.returncode == 0 or time.monotonic() > deadline:
            return done
        time.sleep(0.5)


def _interrupt(proc: subprocess.Popen) -> str:
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], f"children left running: {alive}"
    return out


@pytest.mark.slow
def test_felt_up_starts_everything_healthy_and_stops_cleanly_twice(tmp_path: Path) -> None:
    offset = random.randrange(20000, 40000, 10)
    env = _env(tmp_path, offset)
    for attempt in range(2):  # the second run reuses var/: state must survive a restart
        started = time.monotonic()
        proc = _start(env)
        status = _wait_all_healthy(env, timeout=60)
        took = time.monotonic() - started
        out = _interrupt(proc)
        assert status.returncode == 0, f"run {attempt}: {status.stdout}\n{out}"
        for name in catalog.installed():
            assert f"{name}" in status.stdout and "ok" in status.stdout
        assert took < 60, f"healthy after {took:.1f}s"
        assert "nats" in out and "valkey" in out
        assert not port_open("127.0.0.1", 14222 + offset), "nats still running after Ctrl-C"
    assert (tmp_path / "var" / "nats").is_dir()


def test_second_felt_up_refuses_while_one_runs(tmp_path: Path) -> None:
    offset = random.randrange(40000, 45000, 10)
    env = _env(tmp_path, offset)
    first = _start(env)
    try:
        deadline = time.monotonic() + 20
        while not port_open("127.0.0.1", 16379 + offset) and time.monotonic() < deadline:
            time.sleep(0.2)
        second = subprocess.run([FELT, "up"], env=env, capture_output=True, text=True, timeout=30)
        assert second.returncode != 0
        assert "in use" in second.stderr
    finally:
        _interrupt(first)


@pytest.mark.slow
def test_felt_up_with_default_settings_has_bots_playing_at_a_table(tmp_path: Path) -> None:
    """No client at all: the lobby shows a table with two or more players where hands are dealt."""
    import httpx

    offset = random.randrange(45000, 49000, 10)
    env = _env(tmp_path, offset)
    proc = _start(env)
    try:
        assert _wait_all_healthy(env, timeout=60).returncode == 0
        lobby = f"http://127.0.0.1:{catalog.default_port('gateway') + offset}/api/v2/poker/tables"
        first: dict[str, int] = {}
        deadline = time.monotonic() + 90
        playing = []
        while not playing and time.monotonic() < deadline:
            tables = httpx.get(lobby, timeout=5).json()["tables"]
            for t in tables:
                first.setdefault(t["tableId"], t["lastSeq"])
            playing = [t["tableId"] for t in tables if t["players"] >= 2 and t["handRunning"] and t["lastSeq"] > first[t["tableId"]]]
            time.sleep(0.5)
        assert playing, f"no table with bots playing: {tables}"
    finally:
        _interrupt(proc)
