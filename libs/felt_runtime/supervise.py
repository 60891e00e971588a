"""`felt up`'s supervisor: a child service that exits is reported and started again after a
backoff that doubles on every quick crash (so a service that cannot start does not spin),
and its restart count is written to `var/supervisor.json` for `felt status`."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from felt_client.backoff import Backoff

#: the waits before a restart (0.5 s, doubling, at most 30 s), and how long a child must run to
#: count as healthy again
BACKOFF = Backoff(first=0.5, cap=30.0)
STABLE_AFTER = 60.0
#: under the var dir, while `felt up` runs
STATE_FILE = "supervisor.json"


@dataclass
class Child:
    """One supervised process and its restart bookkeeping."""

    name: str
    start: Callable[[], subprocess.Popen]
    proc: subprocess.Popen | None = None
    restarts: int = 0
    started_at: float = 0.0
    crashes: int = 0  # quick exits in a row
    restart_at: float | None = None  # set while it waits to be started again
    last_exit: int | None = None

    def launch(self, now: float) -> subprocess.Popen[bytes]:
        self.proc, self.started_at, self.restart_at = self.start(), now, None
        return self.proc


@dataclass
class Supervisor:
    """Polls its children; `report` gets one line per exit and per restart."""

    state_file: Path
    report: Callable[[str], None] = print
    children: list[Child] = field(default_factory=list)

    def add(self, name: str, start: Callable[[], subprocess.Popen]) -> Child:
        child = Child(name, start)
        child.launch(time.monotonic())
        self.children.append(child)
        self.write_state()
        return child

    def poll(self, now: float | None = None) -> None:
        """Notice exits and start the children whose backoff has passed."""
        now = time.monotonic() if now is None else now
        changed = False
        for c in self.children:
            if c.restart_at is None and c.proc is not None and (code := c.proc.poll()) is not None:
                c.crashes = 1 if now - c.started_at >= STABLE_AFTER else c.crashes + 1
                wait = BACKOFF.delay(c.crashes)
                c.last_exit, c.restart_at = code, now + wait
                self.report(f"felt: {c.name} exited with {code}; restarting in {wait:.1f}s")
                changed = True
            elif c.restart_at is not None and now >= c.restart_at:
                proc = c.launch(now)
                c.restarts += 1
                self.report(f"felt: {c.name} restarted (restart {c.restarts}, pid {proc.pid})")
                changed = True
        if changed:
            self.write_state()

    def write_state(self) -> None:
        state = {
            c.name: {
                "pid": c.proc.pid if c.proc else None,
                "restarts": c.restarts,
                "last_exit": c.last_exit,
                "waiting": c.restart_at is not None,
            }
            for c in self.children
        }
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(self.state_file)

    def running(self) -> list[subprocess.Popen]:
        return [c.proc for c in self.children if c.proc is not None and c.restart_at is None]

    def close(self) -> None:
        self.state_file.unlink(missing_ok=True)


def read_state(state_file: Path) -> dict[str, dict]:
    """What the running `felt up` last wrote (empty when none runs)."""
    try:
        return json.loads(state_file.read_text())
    except (OSError, ValueError):
        return {}
