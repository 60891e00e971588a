"""`felt up` (what `make run` calls): the whole room starts, reports healthy (the services off
the action's path at a lower CPU priority), stops on Ctrl-C, and starts again on the same state."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
import yaml

from felt_runtime import catalog, infra, nats_access
from felt_runtime.infra import port_open
from felt_runtime.settings import DEFAULT_NATS_PORT, DEFAULT_REDIS_PORT
from felt_runtime.supervise import STATE_FILE, read_state
from tests.support.services import REPO

FELT = str(Path(sys.executable).parent / "felt")
#: seconds a room may take to be healthy: 13-19 s on an idle 2-core machine, 60 s beside four busy
#: test workers (limits, the timer and chat start at nice 10 and get little of the CPU then)
HEALTHY_WITHIN = 120.0


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


def _interrupt(proc: subprocess.Popen, times: int = 1) -> str:
    """Ctrl-C `felt up` (`times` over, 0.3 s apart, as an impatient operator does) and wait until it
    and every child it started have exited; its output."""
    children = psutil.Process(proc.pid).children(recursive=True)
    for n in range(times):
        if n:
            time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert alive == [], f"children left running: {alive}"
    return out


@dataclass
class Room:
    """One `felt up` with default settings, shared by this module's tests (a start is 15-20 s of
    two cores): its environment, its process and `felt status` once it was healthy."""

    env: dict[str, str]
    var: Path
    offset: int
    proc: subprocess.Popen
    status: subprocess.CompletedProcess
    took: float


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    tmp = tmp_path_factory.mktemp("felt-up")
    offset = _free_offset(1000, 16000)
    env = _env(tmp, offset)
    started = time.monotonic()
    proc = _start(env)
    status = _wait_all_healthy(env, proc, timeout=HEALTHY_WITHIN)
    up = Room(env, tmp / "var", offset, proc, status, time.monotonic() - started)
    yield up
    if up.proc.poll() is None:
        _interrupt(up.proc)


@pytest.mark.slow
def test_felt_up_starts_everything_healthy(room: Room) -> None:
    assert room.status.returncode == 0, f"not healthy after {room.took:.0f}s: {room.status.stdout}"
    for name in catalog.installed():
        assert f"{name}" in room.status.stdout and "ok" in room.status.stdout
    state = read_state(room.var / STATE_FILE)
    niceness = {name: psutil.Process(state[name]["pid"]).nice() for name in catalog.installed()}
    assert niceness == {name: catalog.nice(name) for name in catalog.installed()}
    assert niceness["limits"] > niceness["table"] == niceness["wallet"] == niceness["gateway"] == 0
    restarted = _kill_one_and_see_it_back(room.env, room.var, "chat")
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


def test_second_felt_up_refuses_while_one_runs(room: Room) -> None:
    second = subprocess.run([FELT, "up"], env=room.env, capture_output=True, text=True, timeout=30)
    assert second.returncode != 0
    assert "in use" in second.stderr


@pytest.mark.slow
def test_felt_up_with_default_settings_has_bots_playing_at_a_table(room: Room) -> None:
    """No client at all: the lobby shows a table with two or more players where hands are dealt."""
    assert _playing(room, 90), "no table with bots playing"


def liveness_probe() -> tuple[float, int]:
    """The period (s) and failure threshold of a Felt pod's Kubernetes liveness probe
    (deploy/k8s/base/pod-defaults.yaml): the pod is restarted after `threshold` failed probes
    in a row, so an outage longer than `period * threshold` is one the probe must not notice."""
    patches = yaml.safe_load((REPO / "deploy/k8s/base/pod-defaults.yaml").read_text())
    probe = next(p["value"] for p in patches if p["path"].endswith("/livenessProbe"))
    return float(probe["periodSeconds"]), int(probe["failureThreshold"])


def _playing(room: Room, timeout: float) -> list[str]:
    """Tables with two or more players whose hands are being dealt (their event count grows
    within `timeout`)."""
    lobby = f"http://127.0.0.1:{catalog.default_port('gateway') + room.offset}/api/v2/poker/tables"
    first: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            tables = httpx.get(lobby, timeout=5).json()["tables"]
        except (httpx.HTTPError, KeyError, ValueError):
            tables = []
        for t in tables:
            first.setdefault(t["tableId"], t["lastSeq"])
        playing = [
            t["tableId"]
            for t in tables
            if t["players"] >= 2 and t["handRunning"] and t["lastSeq"] > first[t["tableId"]]
        ]
        if playing:
            return playing
        time.sleep(0.5)
    return []


@pytest.mark.slow
def test_a_nats_outage_longer_than_the_liveness_window_restarts_no_service(room: Room) -> None:
    """kill -9 of NATS for longer than a liveness probe tolerates: no service fails the probe as
    many times in a row as would restart its pod (`/healthz` asks no dependency; `/readyz` does),
    `felt up` restarts none, and the bots play again once NATS is back (the same port, store and
    users). Seen beside six busy loops (load 24): ready 38 s after NATS came back, dealing 2 s later."""
    before = read_state(room.var / STATE_FILE)
    port = DEFAULT_NATS_PORT + room.offset
    nats = next(p for p in psutil.Process(room.proc.pid).children() if p.name() == "nats-server")
    nats.kill()  # felt up's child: a zombie until felt up reaps it, so wait for its port instead
    gone_by = time.monotonic() + 10
    while port_open("127.0.0.1", port):
        assert time.monotonic() < gone_by, "NATS still listening 10 s after kill -9"
        time.sleep(0.1)
    down = time.monotonic()
    period, threshold = liveness_probe()
    failed_in_a_row = dict.fromkeys(catalog.installed(), 0)
    restarted_by_probe: set[str] = set()
    with ExitStack() as back_up:  # NATS started again is stopped whichever check fails
        try:
            while time.monotonic() - down < period * threshold + 5:
                round_began = time.monotonic()
                for name in failed_in_a_row:
                    url = f"http://127.0.0.1:{catalog.default_port(name) + room.offset}/healthz"
                    try:
                        ok = httpx.get(url, timeout=4).status_code == 200
                    except httpx.HTTPError:
                        ok = False  # a probe that times out fails, as the kubelet's does
                    failed_in_a_row[name] = 0 if ok else failed_in_a_row[name] + 1
                    if failed_in_a_row[name] >= threshold:
                        restarted_by_probe.add(name)
                time.sleep(max(0.0, period - (time.monotonic() - round_began)))  # one probe per period
            assert restarted_by_probe == set(), f"/healthz failed {threshold} times in a row: {restarted_by_probe}"
            after = read_state(room.var / STATE_FILE)
            assert {n: after[n]["restarts"] for n in after} == {n: before[n]["restarts"] for n in before}
            assert {n: after[n]["pid"] for n in after} == {n: before[n]["pid"] for n in before}
        finally:
            config = room.var / "nats" / nats_access.CONFIG_FILE
            server = infra.start_nats(port, room.var / "nats", room.var / "logs" / "nats.log", config=config)
            back_up.callback(server.stop)
        back = time.monotonic()
        status = _wait_all_healthy(room.env, room.proc, timeout=HEALTHY_WITHIN)
        assert status.returncode == 0, f"not ready again after NATS came back: {status.stdout}"
        ready = time.monotonic() - back
        assert _playing(room, 120), f"no table dealt a hand within 120 s of every service being ready ({ready:.0f} s)"
        after = read_state(room.var / STATE_FILE)
        assert {n: after[n]["restarts"] for n in after} == {n: before[n]["restarts"] for n in before}


@pytest.mark.slow
def test_felt_up_stops_on_ctrl_c_and_starts_again_on_the_same_state(room: Room) -> None:
    """Ctrl-C stops every child and the servers, without a traceback even when pressed twice
    (the second used to interrupt the stop: a traceback, and children left running); a new
    `felt up` on the same var/ is healthy again and stops the same way."""
    for attempt in range(2):
        if attempt:
            room.proc = _start(room.env)
            status = _wait_all_healthy(room.env, room.proc, timeout=HEALTHY_WITHIN)
            assert status.returncode == 0, f"restart not healthy: {status.stdout}"
        out = _interrupt(room.proc, times=2)
        assert "stopping" in out and "Traceback" not in out, out
        assert "nats" in out and "valkey" in out
        assert not port_open("127.0.0.1", DEFAULT_NATS_PORT + room.offset), "nats still running after Ctrl-C"
    assert (room.var / "nats").is_dir()
