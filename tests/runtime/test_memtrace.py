"""Memory tracing for leak hunts (felt_runtime.memtrace): a service started with
FELT_TRACEMALLOC_DIR writes a tracemalloc snapshot on each SIGUSR1 and keeps serving."""

from __future__ import annotations

import gc
import json
import os
import signal
import time
import tracemalloc
from pathlib import Path

from felt_runtime import memtrace
from felt_runtime.bus import call
from tests.support.demo import Echo, Echoed

DEMO = "tests.support.demo"


def snapshot(svc, where: Path, n: int) -> Path:
    svc.process.send_signal(signal.SIGUSR1)
    path = where / f"demo-{svc.process.pid}-{n}.tracemalloc"
    deadline = time.monotonic() + 30
    while not path.exists() or path.stat().st_size == 0:
        assert time.monotonic() < deadline, f"no snapshot {path.name}"
        time.sleep(0.1)
    time.sleep(0.5)  # written in one dump call; let it finish
    return path


async def test_snapshots_on_sigusr1_and_their_difference_names_the_code_that_kept_memory(
    services, broker, tmp_path
) -> None:
    where = tmp_path / "traces"
    where.mkdir()
    svc = services.start("demo", module=DEMO, felt_tracemalloc_dir=str(where))
    first = snapshot(svc, where, 1)
    for i in range(200):
        assert (await call(broker, "felt.demo.echo", Echo(text=f"hi {i}"), Echoed)).text == f"hi {i}"
    second = snapshot(svc, where, 2)
    assert (await call(broker, "felt.demo.echo", Echo(text="still here"), Echoed)).text == "still here"
    lines = memtrace.growth(first, second, top=5)
    assert any("KiB in" in line for line in lines) and any('File "' in line for line in lines)
    census = memtrace.census_growth(first, second)
    assert all(line.startswith("+") for line in census)
    assert memtrace.main([str(first), str(second), "--top", "2"]) == 0


class _Cycle:
    """Garbage only the cycle collector frees (it refers to itself)."""

    def __init__(self) -> None:
        self.me = self


def test_a_snapshot_counts_what_stayed_not_garbage_awaiting_the_collector(tmp_path, monkeypatch) -> None:
    """Cyclic garbage is freed only when the collector gets to it (for old objects that can be
    much later): a snapshot counting it would report growth that is no leak."""
    monkeypatch.setenv("FELT_TRACEMALLOC_DIR", str(tmp_path))
    previous = signal.getsignal(signal.SIGUSR1)
    gc.disable()
    try:
        memtrace.install("here")
        for _ in range(3000):
            _Cycle()
        os.kill(os.getpid(), signal.SIGUSR1)
    finally:
        gc.enable()
        tracemalloc.stop()
        signal.signal(signal.SIGUSR1, previous)
    (census,) = tmp_path.glob("here-*.types.json")
    assert json.loads(census.read_text()).get("_Cycle", 0) == 0
