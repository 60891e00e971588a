"""What one message between two processes costs on this machine, beside the same on one core.

    .venv/bin/python benchmarks/bench_wakeups.py [--round-trips 20000]
    .venv/bin/python benchmarks/bench_wakeups.py --lonely 300 [--gap-ms 5]   (one JSON line)

The room is seven processes that wake each other for every action (gateway, table, wallet, limits,
timer, NATS, Valkey), so its CPU per hand follows what a wake-up costs on the machine, which the
engine benchmark does not see: two machines that run the engine at about the same speed can run the
room at twice the CPU per hand apart with the same code (docs/benchmarks.md, "Wake-ups"). Printed,
side by side in one run:

- a pipe ping-pong between two processes (one byte each way), free to run on any core, and both
  pinned to one core: wall time and CPU per round trip of each side, and the ratio;
- a NATS request/reply (600 bytes, nats-py, the room's NATS binary on 127.0.0.1) one at a time and
  twenty in flight: CPU per round trip of the requester, the responder and nats-server, and the
  requester's share of it in user and system time and in turns of its event loop (one select each).

`--lonely N` measures only N requests spaced `--gap-ms` apart, so each finds every loop asleep (an
action at human pace), and prints them as JSON: `benchmarks/load.py` runs it after each step, the
unit its CPU per action is divided by.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nats
import psutil

from felt_runtime import infra

RESPONDER = """
import asyncio, sys, nats
async def main():
    nc = await nats.connect(sys.argv[1])
    async def echo(msg):
        await msg.respond(msg.data)
    await nc.subscribe("echo", cb=echo)
    await asyncio.Event().wait()
asyncio.run(main())
"""


def ping_pong(n: int, cpu: int | None) -> tuple[float, float, float]:
    """(wall µs, parent CPU µs, child CPU µs) per round trip; `cpu`: pin both processes to it."""
    allowed = os.sched_getaffinity(0)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pid = os.fork()
    if pid == 0:
        for _ in range(n):
            os.read(r1, 1)
            os.write(w2, b"x")
        os._exit(0)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        os.write(w1, b"x")
        os.read(r2, 1)
    wall, mine = time.perf_counter() - t0, time.process_time() - c0
    os.waitpid(pid, 0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    for fd in (r1, w1, r2, w2):
        os.close(fd)
    os.sched_setaffinity(0, allowed)  # as it was (a `taskset` around the run stays in force)
    return wall / n * 1e6, mine / n * 1e6, child / n * 1e6


class CountingSelector(selectors.DefaultSelector):
    """The event loop's selector, counting its turns (each turn selects once)."""

    turns = 0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        self.turns += 1
        return super().select(timeout)


async def nats_round_trips(
    selector: CountingSelector, runs: list[tuple[int, int, float]]
) -> list[tuple[int, float, list[float], list[float]]]:
    """Per run (round trips, in flight, seconds between one's requests): (in flight, round trips/s,
    [requester, responder, nats-server] CPU µs per round trip, [requester user µs, system µs, loop
    turns] per round trip)."""
    with tempfile.TemporaryDirectory(prefix="felt-bench-wakeups-") as tmp:
        server = infra.start_nats(infra.free_port(), Path(tmp) / "js", Path(tmp) / "nats.log")
        responder = subprocess.Popen([sys.executable, "-c", RESPONDER, server.url])
        nc = await nats.connect(server.url)
        try:
            procs = [psutil.Process(), psutil.Process(responder.pid), psutil.Process(server.process.pid)]
            payload = b"x" * 600
            deadline = time.monotonic() + 15
            while True:  # the responder is up once it answers
                try:
                    await nc.request("echo", payload, timeout=0.5)
                    break
                except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.1)

            async def requests(count: int, gap: float) -> None:
                for _ in range(count):
                    if gap:
                        await asyncio.sleep(gap)
                    await nc.request("echo", payload, timeout=5)

            rows = []
            for n, in_flight, gap in runs:
                each = max(1, n // in_flight)
                cpu0 = [sum(p.cpu_times()[:2]) for p in procs]
                own0, turns0 = resource.getrusage(resource.RUSAGE_SELF), selector.turns
                t0 = time.perf_counter()
                await asyncio.gather(*(requests(each, gap) for _ in range(in_flight)))
                wall = time.perf_counter() - t0
                total = each * in_flight
                cpu = [(sum(p.cpu_times()[:2]) - c) / total * 1e6 for p, c in zip(procs, cpu0)]
                own = resource.getrusage(resource.RUSAGE_SELF)
                split = [
                    (own.ru_utime - own0.ru_utime) / total * 1e6,
                    (own.ru_stime - own0.ru_stime) / total * 1e6,
                    (selector.turns - turns0) / total,
                ]
                rows.append((in_flight, total / wall, cpu, split))
            return rows
        finally:
            await nc.close()
            responder.kill()
            responder.wait()
            server.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--round-trips", type=int, default=20000)
    ap.add_argument("--lonely", type=int, default=0, help="only this many spaced requests, as JSON")
    ap.add_argument("--gap-ms", type=float, default=5.0)
    args = ap.parse_args()
    selector = CountingSelector()
    if args.lonely:
        with asyncio.Runner(loop_factory=lambda: asyncio.SelectorEventLoop(selector)) as runner:
            [(_, rate, cpu, split)] = runner.run(nats_round_trips(selector, [(args.lonely, 1, args.gap_ms / 1e3)]))
        print(json.dumps({"cpu_us": cpu, "sum_us": sum(cpu), "user_us": split[0], "system_us": split[1]}))
        return 0
    print("| pipe ping-pong | wall µs / round trip | CPU µs: parent · child |")
    print("|---|---:|---|")
    free = ping_pong(args.round_trips, None)
    pinned = ping_pong(args.round_trips, min(os.sched_getaffinity(0)))
    for name, (wall, mine, child) in (("two processes, any core", free), ("both on one core", pinned)):
        print(f"| {name} | {wall:.1f} | {mine:.1f} · {child:.1f} |")
    print(f"| **any core / one core** | **{free[0] / pinned[0]:.1f}×** | |")
    print()
    print(
        "| NATS request/reply, 600 B | round trips/s | CPU µs / round trip: requester · responder · nats-server (sum)"
        " | requester: user · system µs, loop turns |"
    )
    print("|---|---:|---|---|")
    runs = [(args.round_trips // 10, in_flight, 0.0) for in_flight in (1, 20)]
    with asyncio.Runner(loop_factory=lambda: asyncio.SelectorEventLoop(selector)) as runner:
        rows = runner.run(nats_round_trips(selector, runs))
    for in_flight, rate, cpu, (user, system, turns) in rows:
        parts = " · ".join(f"{c:.0f}" for c in cpu)
        print(
            f"| {in_flight} in flight | {rate:,.0f} | {parts} ({sum(cpu):.0f}) | {user:.0f} · {system:.0f}, {turns:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
