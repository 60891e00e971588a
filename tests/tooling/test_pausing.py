"""The pause the SIGSTOP tests use (tests/support/pausing.py): inside the block every thread of the
process is stopped, after it the process runs again, and one that was killed meanwhile fails the
test with its exit status instead of a bare "no such process"."""

import signal
import subprocess
import sys

import pytest

from tests.support.pausing import paused, thread_states

THREADS = "import threading, time; [threading.Thread(target=time.sleep, args=(60,)).start() for _ in range(3)]; time.sleep(60)"


def test_every_thread_is_stopped_inside_and_runs_after() -> None:
    proc = subprocess.Popen([sys.executable, "-c", THREADS])
    try:
        with paused(proc):
            states = thread_states(proc.pid)
            assert len(states) >= 1 and set(states) <= {"T", "t"}, states
        assert "T" not in thread_states(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_a_process_killed_while_paused_fails_with_its_exit_status() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(AssertionError, match=f"ended while paused: exit {-signal.SIGKILL}"):
        with paused(proc):
            proc.kill()
            proc.wait()
