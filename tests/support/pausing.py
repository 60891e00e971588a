"""Pause a real process with SIGSTOP the way a starved or frozen server is, and wake it.

`os.kill` only queues the signal: each thread of the process stops when the kernel next gets
to it, which on a busy machine can be after the process answered a request the test sent
"to a stopped server" (CI saw NATS answer one that way). `paused` returns only once every
thread is stopped, so what the test sends next really meets a frozen process."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol


def thread_states(pid: int) -> list[str]:
    """The scheduler state letter of each thread of `pid` (T: stopped), from /proc."""
    states = []
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            states.append(stat.read_text().rsplit(")", 1)[1].split()[0])
        except (FileNotFoundError, ProcessLookupError):  # a thread that ended meanwhile
            continue
    return states


def stop(pid: int, timeout: float = 10.0) -> None:
    """SIGSTOP `pid` and wait until every one of its threads is stopped."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + timeout
    while not all(s in "tT" for s in thread_states(pid) or ["?"]):
        assert time.monotonic() < deadline, f"process {pid} did not stop: {thread_states(pid)}"
        time.sleep(0.001)


class Paused(Protocol):
    """A child process as `subprocess.Popen` and the fork server's `ForkedProcess` both are."""

    pid: int
    args: Any

    def poll(self) -> int | None: ...


@contextmanager
def paused(process: Paused) -> Iterator[None]:
    """The process is stopped inside the block and continued when it is left, whatever happens.
    One that is gone by then fails the test with how it ended (a stopped process can only be
    killed: CI once saw a paused wallet vanish, and the exit status is what tells who did it)."""
    stop(process.pid)
    try:
        yield
    finally:
        if (code := process.poll()) is not None:
            raise AssertionError(f"{process.args} (pid {process.pid}) ended while paused: exit {code}")
        os.kill(process.pid, signal.SIGCONT)
