"""What starting a service costs the suite: `python -m felt_<name>` against a fork of a process that
imported every service already (tests/support/forkserver.py), side by side in one run.

    .venv/bin/python benchmarks/bench_service_start.py [--rounds 3]

The suite starts about 300 service processes; each one exec'd pays its imports again (SQLAlchemy,
alembic, FastStream and nats-py, the engine's tables). For each service, alternately forked and
exec'd against one NATS and one Valkey on 127.0.0.1 with a fresh SQLite file: the seconds until its
`/readyz` answers and the CPU the process used by then. Printed: the means per service and the
ratio exec / fork.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the tests' service runner (tests/ is a package at the repo root)

import psutil

from felt_runtime import infra
from tests.support.services import ServiceRunner, fork_server

SERVICES = ("wallet", "table", "limits", "timer", "gateway")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="felt-bench-start-"))
    nats_srv = infra.start_nats(infra.free_port(), tmp / "nats", tmp / "nats.log")
    valkey = infra.start_valkey(infra.free_port(), tmp / "valkey", tmp / "valkey.log", persist=False)
    fork_server()  # its own imports, once, before anything is timed
    seen: dict[tuple[str, bool], list[tuple[float, float]]] = defaultdict(list)
    try:
        for n in range(args.rounds * 2):
            forked = n % 2 == 0
            runner = ServiceRunner(nats_srv.url, valkey.url, tmp, forked=forked)
            for name in SERVICES:
                started = time.monotonic()
                proc = runner.start(name, database_url=f"sqlite+aiosqlite:///{tmp}/{name}-{n}.db")
                assert proc.process is not None
                cpu = psutil.Process(proc.process.pid).cpu_times()
                seen[name, forked].append((time.monotonic() - started, cpu.user + cpu.system))
            runner.stop_all()
    finally:
        for server in (valkey, nats_srv):
            server.stop()
    print("| service | exec'd: ready s | CPU s | forked: ready s | CPU s | CPU exec / fork |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in SERVICES:
        (ex_wall, ex_cpu), (fk_wall, fk_cpu) = (
            (statistics.mean(w for w, _ in seen[name, f]), statistics.mean(c for _, c in seen[name, f]))
            for f in (False, True)
        )
        print(f"| {name} | {ex_wall:.2f} | {ex_cpu:.2f} | {fk_wall:.2f} | {fk_cpu:.2f} | {ex_cpu / fk_cpu:.1f}× |")


if __name__ == "__main__":
    main()
