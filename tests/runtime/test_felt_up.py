"""`felt up` (what `make run` calls): the whole room starts, reports healthy (the services off
the action's path at a lower CPU priority), stops on Ctrl-C, and starts again on the same state."""

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
from felt_runtime.settings import DEFAULT_NATS_PORT, DEFAULT_REDIS_PORT
from felt_runtime.supervise import STATE_FILE, read_state
from tests.support.services import REPO

FELT = str(Path(sys.executable).parent / "felt")


def _env(tmp_path: Path, offset: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FELT_")}
    env.update(FELT_VAR_DIR=str(tmp_path / "var"), FELT_PORT_OFFSET=str(offset))
    return env


def _free_offset(low: int, high: int) -> int:
    """A port offset whose room ports are all free. The ranges stay below 32768, Linux's first
    ephemeral port: a room moved into that range can find a port taken by some test's client
    socket and `felt up` then exits before it starts anything (seen in CI as a KeyError)."""
    ports = [*catalog.SERVICES.values(), DEFAULT_NATS_PORT, DEFAULT_REDIS_PORT]
    assert max(ports) + high < 32768
    while True:
        offset = random.randrange(low, high, 10)
        if not any(port_open("127.0.0.1", p + offset, timeout=0.1) for p in ports):
            return offset


def _start(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [FELT, "up"], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _wait_all_healthy(env: dict[str, str], proc: subprocess.Popen, timeout: float) -> subprocess.CompletedProcess:
    """`felt status` once every service is ready; fails with `felt up`'s output if it exited."""
    deadline = time.monotonic() + timeout
    while True:
        done = subprocess.run([FELT, "status"], env=env, capture_output=True, text=True)
        if proc.poll() is not None:
            pytest.fail(f"felt up exited with {proc.returncode}:\n{proc.communicate()[0]}")
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
    offset = _free_offset(1000, 5000)
    env = _env(tmp_path, offset)
    for attempt in range(2):  # the second run reuses var/: state must survive a restart
        started = time.monotonic()
        proc = _start(env)
        status = _wait_all_healthy(env, proc, timeout=60)
        took = time.monotonic() - started
        assert status.returncode == 0, f"run {attempt} not healthy after {took:.0f}s: {status.stdout}"
        if attempt == 0:
            state = read_state(tmp_path / "var" / STATE_FILE)
            niceness = {name: psutil.Process(state[name]["pid"]).nice() for name in catalog.installed()}
            assert niceness == {name: catalog.nice(name) for name in catalog.installed()}
            assert niceness["limits"] > niceness["table"] == niceness["wallet"] == niceness["gateway"] == 0
            restarted = _kill_one_and_see_it_back(env, tmp_path / "var", "chat")
        out = _interrupt(proc)
        assert status.returncode == 0, f"run {attempt}: {status.stdout}\n{out}"
        for name in catalog.installed():
            assert f"{name}" in status.stdout and "ok" in status.stdout
        assert took < 60, f"healthy after {took:.1f}s"
        assert "nats" in out and "valkey" in out
        assert not port_open("127.0.0.1", 14222 + offset), "nats still running after Ctrl-C"
    assert (tmp_path / "var" / "nats").is_dir()
    assert "chat" in restarted and "ok  restarts 1 (last exit -9)" in restarted, restarted


def _kill_one_and_see_it_back(env: dict[str, str], var: Path, name: str) -> str:
    """kill -9 one child of `felt up`; it is restarted and `felt status` counts the restart."""
    pid = read_state(var / STATE_FILE)[name]["pid"]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while True:
        out = subprocess.run([FELT, "status"], env=env, capture_output=True, text=True).stdout
        line = next(line for line in out.splitlines() if line.startswith(name))
        if " ok  restarts 1" in line or time.monotonic() > deadline:
            return line
        time.sleep(0.5)


def test_second_felt_up_refuses_while_one_runs(tmp_path: Path) -> None:
    offset = _free_offset(5000, 9000)
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

    offset = _free_offset(9000, 16000)
    env = _env(tmp_path, offset)
    proc = _start(env)
    try:
        assert _wait_all_healthy(env, proc, timeout=60).returncode == 0
        lobby = f"http://127.0.0.1:{catalog.default_port('gateway') + offset}/api/v2/poker/tables"
        first: dict[str, int] = {}
        deadline = time.monotonic() + 90
        playing = []
        while not playing and time.monotonic() < deadline:
            tables = httpx.get(lobby, timeout=5).json()["tables"]
            for t in tables:
                first.setdefault(t["tableId"], t["lastSeq"])
            playing = [
                t["tableId"]
                for t in tables
                if t["players"] >= 2 and t["handRunning"] and t["lastSeq"] > first[t["tableId"]]
            ]
            time.sleep(0.5)
        assert playing, f"no table with bots playing: {tables}"
    finally:
        _interrupt(proc)
