"""Finding a memory leak in a running service (docs/operations.md "Memory").

With `FELT_TRACEMALLOC_DIR` set, a service traces its Python allocations from start-up
(tracemalloc, `FELT_TRACEMALLOC_FRAMES` frames each) and writes a snapshot into that
directory on each SIGUSR1: `<service>-<pid>-<n>.tracemalloc`, with a count of live objects by
type beside it (`.types.json`). Two snapshots taken apart
(`python -m felt_runtime.memtrace OLD NEW`) list where the memory that stayed was allocated.
Off by default: tracing costs CPU and memory of its own.
"""

from __future__ import annotations

import argparse
import collections
import gc
import itertools
import json
import os
import signal
import tracemalloc
from pathlib import Path
from types import FrameType


def install(name: str) -> None:
    where = os.environ.get("FELT_TRACEMALLOC_DIR")
    if not where:
        return
    tracemalloc.start(int(os.environ.get("FELT_TRACEMALLOC_FRAMES", "10")))
    numbers = itertools.count(1)

    def dump(signum: int, frame: FrameType | None) -> None:
        path = Path(where) / f"{name}-{os.getpid()}-{next(numbers)}.tracemalloc"
        gc.collect()  # what stayed, not cycles the collector has yet to reach: those are no leak
        census = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        path.with_suffix(".types.json").write_text(json.dumps(census))
        tracemalloc.take_snapshot().dump(str(path))

    signal.signal(signal.SIGUSR1, dump)


def census_growth(old: Path, new: Path, top: int = 15) -> list[str]:
    """The `top` object types whose count (objects the garbage collector tracks) grew most."""
    before = json.loads(old.with_suffix(".types.json").read_text())
    after = json.loads(new.with_suffix(".types.json").read_text())
    grown = sorted(((n - before.get(t, 0), t, n) for t, n in after.items()), reverse=True)[:top]
    return [f"{d:+d} {t} (now {n})" for d, t, n in grown if d > 0]


def growth(old: Path, new: Path, top: int = 15) -> list[str]:
    """The `top` allocation sites (by traceback) that grew most from `old` to `new`, after the
    object types that grew most in number."""
    before = tracemalloc.Snapshot.load(str(old))
    after = tracemalloc.Snapshot.load(str(new))
    noise = [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap*"),
    ]
    diff = after.filter_traces(noise).compare_to(before.filter_traces(noise), "traceback")
    lines = census_growth(old, new, top)
    for stat in diff[:top]:
        lines.append(
            f"{stat.size_diff / 1024:+.1f} KiB in {stat.count_diff:+d} blocks (now {stat.size / 1024:.1f} KiB)"
        )
        lines += ["    " + line for line in stat.traceback.format(most_recent_first=True)[:20]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="where the memory that stayed between two snapshots was allocated")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    print("\n".join(growth(args.old, args.new, args.top)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
