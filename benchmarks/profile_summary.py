"""Where the CPU of a service goes, from `py-spy record --format raw` files (collapsed stacks:
`frame;frame;... count` per line), as written by `bench_table.py --profile DIR`.

    .venv/bin/python benchmarks/profile_summary.py DIR/limits-10t.txt [--top 25]

Prints, per file, the share of samples (a) whose innermost frame is in a given function (self)
and (b) whose stack passes through it (inclusive), for the top functions, and the share idle
in the event loop's selector (the service was waiting, not computing). py-spy samples a thread
that is running or waiting to run: on a saturated machine (or at a lower priority) a sample is
where the thread waited for a core as well as where it computed.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>.*?)(?::\d+)?\)$")


def short(frame: str) -> str:
    """`func (path/to/module.py:12)` -> `module.py:func` (lines merged)."""
    m = FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    path = m["file"]
    tail = "/".join(path.split("/")[-2:]) if "site-packages" in path or "/lib/python" in path else path.split("/")[-1]
    return f"{tail}:{m['func']}"


#: where a busy sample's innermost frame is: the first matching (path fragment, category) wins
CATEGORIES = [
    ("aiosqlite/", "SQLite (aiosqlite thread, sqlite3)"),
    ("sqlite3/", "SQLite (aiosqlite thread, sqlite3)"),
    ("asyncpg/", "PostgreSQL driver"),
    ("sqlalchemy/", "SQLAlchemy (compile, bind, rows)"),
    ("pydantic", "pydantic (validate, dump)"),
    ("fast_depends/", "FastStream (dispatch, DI)"),
    ("faststream/", "FastStream (dispatch, DI)"),
    ("nats/", "nats-py (protocol)"),
    ("redis/", "redis-py"),
    ("logging/", "logging"),
    ("json/", "json"),
    ("asyncio/selector_events.py", "socket send / receive (asyncio transport)"),
    ("asyncio/", "asyncio loop"),
    ("threading.py", "threads (handoff)"),
    ("concurrent/", "threads (handoff)"),
    ("felt_", "Felt code"),
    ("uuid.py", "other stdlib"),
    ("enum.py", "other stdlib"),
    ("greenlet", "SQLAlchemy (compile, bind, rows)"),
]


#: the innermost frame of a sample waiting in the event loop's selector (the service was idle).
#: Only the selector's own call: a transport's socket send (`selector_events.py`) is busy, and it
#: also holds the samples of a sender preempted after waking its peer (NATS, Valkey, a client)
IDLE = ("selectors.py:EpollSelector.select", "selectors.py:PollSelector.select", "selectors.py:SelectSelector.select")


def category(frame_file: str) -> str:
    return next((name for frag, name in CATEGORIES if frag in frame_file), "other")


def summarise(path: Path, top: int) -> str:
    selfs: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    cats: Counter[str] = Counter()
    total = idle = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [short(f) for f in stack.split(";") if not f.startswith(("process ", "thread "))]
        total += n
        if frames and frames[-1].endswith(IDLE):
            idle += n
            continue
        raw = [f for f in stack.split(";") if not f.startswith(("process ", "thread "))]
        if frames:
            selfs[frames[-1]] += n
            m = FRAME.match(raw[-1].strip())
            cats[category(m["file"] if m else raw[-1])] += n
        for f in set(frames):
            incl[f] += n
    busy = total - idle
    out = [f"## {path.name}: {total} samples, idle in the selector {idle / max(total, 1):.0%}, busy {busy}"]
    out.append("by category of the innermost frame (share of busy samples):")
    out += [f"  {n / max(busy, 1):6.1%}  {c}" for c, n in cats.most_common()]
    out.append("self (share of busy samples):")
    out += [f"  {n / max(busy, 1):6.1%}  {f}" for f, n in selfs.most_common(top)]
    out.append("inclusive (share of busy samples):")
    out += [f"  {n / max(busy, 1):6.1%}  {f}" for f, n in incl.most_common(top)]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    for f in args.files:
        print(summarise(f, args.top))
        print()


if __name__ == "__main__":
    main()
