"""Soak: the whole room (tests/chaos/room.py, no kills) under steady play for a long time, with
the resident memory and open file descriptors of every process sampled every `--every` seconds;
at the end the least-squares slope of each per hour, and the room's money invariants.

`python -m tests.chaos.soak --minutes 60 --bots 12` (`make soak`). Load: `--bots` easy bots,
two per table, acting as fast as the table lets them (think 0.05 s) — pick half of what the
machine sustains (on the 2-core dev box 12 bots keep the CPU about half busy).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import tempfile
import time
from pathlib import Path

import nats
import psutil
from sqlalchemy.ext.asyncio import create_async_engine

from felt_contracts import subjects
from felt_chat.settings import ChatSettings
from felt_limits.settings import LimitsSettings
from felt_runtime import memtrace
from tests.chaos.room import Report, Room, money_checks


STREAMS = (subjects.WALLET_EVENTS_STREAM, subjects.TABLE_SEATS_STREAM)
#: what the room keeps for a set time, by service: shortened by --retention-minutes
RETENTION = {
    "table": "felt_table_events_max_age_seconds",
    "wallet": "felt_wallet_events_max_age_seconds",
}
#: the durable consumers whose backlog would look like memory growth in their service
CONSUMERS = {
    "limits": (subjects.WALLET_EVENTS_STREAM, LimitsSettings.model_fields["consumer"].default),
    "chat": (subjects.TABLE_SEATS_STREAM, ChatSettings.model_fields["consumer"].default),
}


def slope_per_hour(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) in value per hour."""
    n = len(samples)
    if n < 2:
        return 0.0
    mx = sum(t for t, _ in samples) / n
    my = sum(v for _, v in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    return 0.0 if var == 0 else sum((t - mx) * (v - my) for t, v in samples) / var * 3600


def processes(room: Room) -> dict[str, psutil.Process]:
    out = {name: psutil.Process(p.process.pid) for name, p in room.procs.items() if p.process is not None}
    for inf in (room.nats, room.valkey):
        if inf.server is not None:
            out[inf.name] = psutil.Process(inf.server.process.pid)
    return out


def _cpu_seconds(p: psutil.Process) -> float:
    t = p.cpu_times()
    return t.user + t.system


def snapshot(room: Room, traced: tuple[str, ...]) -> list[Path]:
    """Ask each traced service for a tracemalloc snapshot (SIGUSR1, felt_runtime.memtrace)
    and wait until it is written."""
    made = []
    for name in traced:
        proc = room.procs[name].process
        assert proc is not None
        before = set(room.workdir.glob(f"{name}-{proc.pid}-*.tracemalloc"))
        proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 60
        while not (new := set(room.workdir.glob(f"{name}-{proc.pid}-*.tracemalloc")) - before):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} wrote no snapshot within 60 s")
            time.sleep(0.5)
        made.append(new.pop())
    return made


async def soak(room: Room, minutes: float, every: float, traced: tuple[str, ...] = ()) -> dict:
    procs = processes(room)
    mem: dict[str, list[tuple[float, float]]] = {n: [] for n in procs}
    fds: dict[str, list[tuple[float, float]]] = {n: [] for n in procs}
    engine = create_async_engine(room.database_url)
    nc = await nats.connect(room.nats.url)
    js = nc.jetstream()
    stored: dict[str, list[tuple[float, float]]] = {n: [] for n in STREAMS}
    lag: dict[str, list[int]] = {n: [] for n in CONSUMERS}
    report = Report(seed=0, seconds=minutes * 60)
    start = time.monotonic()
    cpu0 = {n: _cpu_seconds(p) for n, p in procs.items()}
    hands0 = await room.hands_played()
    first = snapshot(room, traced)
    try:
        while True:
            t = time.monotonic() - start
            for name, p in procs.items():
                mem[name].append((t, p.memory_info().rss / 2**20))
                fds[name].append((t, float(p.num_fds())))
            for name in STREAMS:  # what NATS holds: its RSS next to the streams' stored bytes
                stored[name].append((t, (await js.stream_info(name)).state.bytes / 2**20))
            for name, (stream, durable) in CONSUMERS.items():  # events not yet applied
                info = await js.consumer_info(stream, durable)
                lag[name].append(info.num_pending + info.num_ack_pending)
            await money_checks(engine, report)
            print(
                json.dumps({"t": round(t), **{n: round(v[-1][1]) for n, v in mem.items()}}), file=sys.stderr, flush=True
            )
            if t >= minutes * 60:
                break
            await asyncio.sleep(every)
        hands = await room.hands_played()
        cpu = {n: _cpu_seconds(p) - cpu0[n] for n, p in procs.items()}
        last = snapshot(room, traced)
    finally:
        await engine.dispose()
        await nc.close()
    wall = time.monotonic() - start
    return {
        "minutes": round(wall / 60, 1),
        # share of one core, per process and for the whole room (the machine has psutil.cpu_count())
        "cpu_cores": {**{n: round(c / wall, 3) for n, c in cpu.items()}, "room": round(sum(cpu.values()) / wall, 3)},
        "machine_load_avg": [round(x, 1) for x in psutil.getloadavg()],
        "samples": len(next(iter(mem.values()))),
        "hands": sum(hands.values()) - sum(hands0.get(t, 0) for t in hands),
        # the second half's slope too: what levels off (caches filling, the allocator settling) is steep
        # early and flat late; a leak keeps its slope
        "rss_mb": {
            n: {
                "first": round(v[0][1], 1),
                "last": round(v[-1][1], 1),
                "slope_mb_per_h": round(slope_per_hour(v), 2),
                "second_half_slope_mb_per_h": round(slope_per_hour(v[len(v) // 2 :]), 2),
            }
            for n, v in mem.items()
        },
        "stream_mb": {
            n: {"first": round(v[0][1], 1), "last": round(v[-1][1], 1), "slope_mb_per_h": round(slope_per_hour(v), 2)}
            for n, v in stored.items()
        },
        "consumer_backlog": {n: {"max": max(v), "last": v[-1]} for n, v in lag.items()},
        "fds": {
            n: {
                "first": int(v[0][1]),
                "last": int(v[-1][1]),
                "slope_per_h": round(slope_per_hour(v), 2),
                "second_half_slope_per_h": round(slope_per_hour(v[len(v) // 2 :]), 2),
            }
            for n, v in fds.items()
        },
        # where the Python memory that stayed from the first sample to the last was allocated
        "grown": {name: memtrace.growth(a, b, top=8) for name, a, b in zip(traced, first, last, strict=True)},
        "money_checks": report.checks,
        "failures": report.failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--every", type=float, default=60, help="seconds between samples")
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--warmup", type=float, default=60, help="seconds of play before the first sample")
    parser.add_argument(
        "--trace", default="", help="services to run under tracemalloc, e.g. limits,table: the report lists what grew"
    )
    parser.add_argument(
        "--retention-minutes",
        type=float,
        default=0,
        help="keep idempotency records and stream events this long instead of a day / a week, so that what is "
        "kept by design levels off within the run and what is left growing is a leak",
    )
    args = parser.parse_args(argv)
    traced = tuple(n for n in args.trace.split(",") if n)
    workdir = Path(tempfile.mkdtemp(prefix="felt-soak-"))
    env: dict[str, dict[str, str]] = {n: {"felt_tracemalloc_dir": str(workdir)} for n in traced}
    if args.retention_minutes:
        kept = str(round(args.retention_minutes * 60))
        for service, setting in RETENTION.items():
            env.setdefault(service, {})[setting] = kept
    room = Room(workdir, f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}", bots=args.bots, env=env)
    print(f"soak: {args.minutes} min, {args.bots} bots, logs in {workdir}", file=sys.stderr)
    try:
        room.start()
        time.sleep(args.warmup)
        result = asyncio.run(soak(room, args.minutes, args.every, traced))
    finally:
        room.stop()
    print(json.dumps(result, indent=1))
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
