"""The supervisor `felt up` runs: real child processes that exit are reported and started
again with a doubling backoff; the state file says how often."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from felt_runtime import supervise


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def _wait(cond, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_killed_child_is_reported_and_started_again(tmp_path: Path) -> None:
    lines: list[str] = []
    sup = supervise.Supervisor(tmp_path / "s.json", report=lines.append)
    child = sup.add("sleepy", _sleeper)
    first = child.proc
    try:
        first.kill()
        first.wait()
        _wait(lambda: (sup.poll(), child.restarts == 1)[1])
        assert child.proc.pid != first.pid and child.proc.poll() is None
        assert lines[0].startswith("felt: sleepy exited with -9") and "restarted (restart 1" in lines[1]
        state = supervise.read_state(tmp_path / "s.json")
        assert state["sleepy"] == {"pid": child.proc.pid, "restarts": 1, "last_exit": -9, "waiting": False}
    finally:
        for p in sup.running():
            p.kill()
        sup.close()
    assert not (tmp_path / "s.json").exists()


def test_a_child_that_keeps_crashing_waits_longer_each_time(tmp_path: Path) -> None:
    lines: list[str] = []
    sup = supervise.Supervisor(tmp_path / "s.json", report=lines.append)
    child = sup.add("crashy", lambda: subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"]))
    waits = []
    for _ in range(3):
        child.proc.wait()
        sup.poll()
        waits.append(child.restart_at - time.monotonic())
        sup.poll(now=child.restart_at)
    assert child.restarts == 3 and child.last_exit == 3
    assert waits[0] < waits[1] < waits[2] <= supervise.BACKOFF.cap
    assert all("exited with 3" in line for line in lines[::2])
    child.proc.wait()
    sup.close()
