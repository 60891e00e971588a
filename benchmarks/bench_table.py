"""Table throughput: complete hands per second and command→event latency for 1, 10 and 100
concurrent tables of scripted players over the real bus and wallet, side by side with the
engine alone playing the same scripted hands in-process (the ceiling), in the same run.

    .venv/bin/python benchmarks/bench_table.py [--quick] [--seconds S] [--tables 1,10,100] [--no-docs]
                                               [--profile DIR]   (py-spy stacks of every service)

Everything runs for real on 127.0.0.1: NATS and Valkey from `felt_runtime.infra`, the wallet,
limits, timer and table services as subprocesses (tests/support/services.py), one SQLite file
per service in a temp dir. Each table is `nlhe-1`, blinds 1/2, three scripted players (explicit
start). A client per table listens to the table's public event subject; on every `turn` event it
picks the scripted action from the turn's legal actions and sends `Act` (with hand/turn guards)
on `felt.table.cmd.<id>`; on `hand_end` it sends `Start` for the next hand (re-seating a fresh
account if one busted). Latency = from sending `Act` to receiving the public event whose number
the command returned (the last event it produced: after the wallet escrowed the chips, the
events were stored and published). Hands count when their `hand_end` event arrives inside the
measured window (after every table finished a warm-up hand).

Engine: the same policy drives `felt_engine` (start_hand/apply) in this process for the same
number of tables, round-robin, for the same time; its latency is one `apply` (plus the policy
and legal-action read a client would need). CPU: per service, CPU seconds used in the window
divided by hands played.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the tests' service runner (tests/ is a package at the repo root)

import nats
import psutil

from felt_contracts import subjects
from felt_contracts.table import (
    Act,
    CreateTable,
    GetView,
    Join,
    Ready,
    Start,
    TableConfig,
    TableRequest,
)
from felt_contracts.wallet import OpenAccount
from felt_engine import betting
from felt_engine.actions import Action
from felt_engine.cards import Deck
from felt_engine.hand import apply, next_button, start_hand
from felt_engine.profiles import get_profile
from felt_runtime import infra
from tests.support.services import ServiceRunner

import docs_block

PLAYERS = 3
SERVICES = ("table", "wallet", "timer", "limits")
BUY_IN = 200
CONFIG = dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=BUY_IN, seats=6)


def choose(legal: dict[str, Any], hand_no: int, k: int) -> tuple[str, int | None]:
    """The scripted policy (same for table and engine): mostly check/call, some min bets,
    min raises and folds, decided by the hand number and the action's index in the hand."""
    r = (hand_no * 7 + k * 3) % 10
    if r == 0 and legal.get("fold") and not legal.get("check"):
        return "fold", None
    if r in (1, 2) and legal.get("bet"):
        return "bet", legal["bet"]["min"]
    if r == 3 and legal.get("raiseTo"):
        return "raiseTo", legal["raiseTo"]["min"]
    if legal.get("call") is not None:
        return "call", None
    if legal.get("check"):
        return "check", None
    return "fold", None


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


# ---- the table over the bus ---------------------------------------------------------------


class TableClient:
    """Three scripted players of one table, driven by its public events."""

    def __init__(self, nc: nats.NATS, run: str, i: int) -> None:
        self.nc, self.tid, self.run = nc, f"b{run}-{i}", run
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.arrived: dict[int, float] = {}
        self.waiting: dict[int, asyncio.Future[float]] = {}
        self.hand_no = 0
        self.k = 0
        self.hands = 0
        self.latencies: list[float] = []
        self.counting = False
        self.stop = False

    async def request(self, subject: str, req: Any) -> dict[str, Any]:
        msg = await self.nc.request(subject, req.model_dump_json().encode(), timeout=60)
        reply = json.loads(msg.data)
        if not reply["ok"]:
            raise RuntimeError(f"{subject}: {reply['error']}")
        return reply["result"]

    async def cmd(self, command: Any) -> dict[str, Any]:
        return await self.request(subjects.table_command(self.tid), TableRequest(table_id=self.tid, command=command))

    def on_event(self, msg: Any) -> None:
        at = time.perf_counter()
        ev = json.loads(msg.data)
        self.arrived[ev["seq"]] = at
        fut = self.waiting.pop(ev["seq"], None)
        if fut is not None and not fut.done():
            fut.set_result(at)
        self.events.put_nowait(ev)

    async def setup(self) -> None:
        await self.request(subjects.TABLE_CREATE, CreateTable(config=TableConfig(table_id=self.tid, **CONFIG)))
        await self.nc.subscribe(subjects.table_public_events(self.tid), cb=self._cb)
        for _ in range(PLAYERS):
            await self.seat_new()

    async def _cb(self, msg: Any) -> None:
        self.on_event(msg)

    async def seat_new(self) -> str:
        pid = f"p{uuid.uuid4().hex[:12]}"
        await self.request(subjects.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=pid, owner_id=f"o-{pid}"))
        await self.cmd(Join(participant_id=pid, owner_id=f"o-{pid}", kind="agent", buy_in=BUY_IN))
        await self.cmd(Ready(participant_id=pid))
        return pid

    async def start(self) -> None:
        """Start the next hand, first re-seating fresh accounts for players who busted."""
        for _ in range(10):
            seated = [s["participant_id"] for s in (await self.cmd(GetView()))["view"]["seats"]]
            while len(seated) < PLAYERS:
                seated.append(await self.seat_new())
            try:
                await self.cmd(Start(participant_id=seated[0]))
                return
            except RuntimeError:
                await asyncio.sleep(0.05)
        raise RuntimeError(f"{self.tid}: no hand could start")

    async def play(self) -> None:
        """Act on every turn; after `stop`, finish the running hand and stand (no table left mid-hand)."""
        await self.start()
        while True:
            ev = await self.events.get()
            if ev["kind"] == "turn":
                await self.act(ev["turn"])
            elif ev["kind"] == "hand_end":
                if self.counting:
                    self.hands += 1
                self.hand_no += 1
                self.k = 0
                if self.stop:
                    return
                await self.start()

    async def act(self, turn: dict[str, Any]) -> None:
        la = turn["legal_actions"]
        legal = {
            "fold": la["fold"],
            "check": la["check"],
            "call": la["call"],
            "bet": la["bet"],
            "raiseTo": la["raise_to"],
        }
        action, amount = choose(legal, self.hand_no, self.k)
        self.k += 1
        t0 = time.perf_counter()
        res = await self.cmd(
            Act(
                participant_id=turn["participant_id"],
                action=action,
                amount=amount,
                hand_id=turn["hand_id"],
                turn_id=turn["turn_id"],
            )
        )
        seq = res["seq"]
        at = self.arrived.get(seq)
        if at is None:
            fut = asyncio.get_running_loop().create_future()
            self.waiting[seq] = fut
            at = await asyncio.wait_for(fut, 30)
        if self.counting:
            self.latencies.append(at - t0)


def profile_services(procs: dict[str, Any], out: Path, tag: str, seconds: float) -> list[Any]:
    """`py-spy record` of every service for the measured window (collapsed stacks, one file each;
    `benchmarks/profile_summary.py` reads them). Non-blocking: the services are not paused."""
    import subprocess

    out.mkdir(parents=True, exist_ok=True)
    spy = Path(sys.executable).with_name("py-spy")
    return [
        subprocess.Popen(
            [
                str(spy),
                "record",
                "--pid",
                str(p.pid),
                "--duration",
                str(int(seconds)),
                "--rate",
                "200",
                "--nonblocking",
                "--format",
                "raw",
                "--output",
                str(out / f"{name}-{tag}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, p in procs.items()
    ]


async def run_tables(
    nats_url: str,
    services: dict[str, Any],
    n: int,
    seconds: float,
    warmup: float,
    drain: float,
    profile: Path | None = None,
) -> dict[str, Any]:
    nc = await nats.connect(nats_url, pending_size=256 * 1024 * 1024)
    # the clients (this process) and NATS share the 2 cores with the services: their CPU is reported too
    procs = {**services, "client": psutil.Process()}
    run = uuid.uuid4().hex[:6]
    clients = [TableClient(nc, run, i) for i in range(n)]
    try:
        sem = asyncio.Semaphore(50)

        async def setup(c: TableClient) -> None:
            async with sem:
                await c.setup()

        await asyncio.gather(*(setup(c) for c in clients))
        tasks = [asyncio.create_task(c.play()) for c in clients]
        # warm-up: every table has finished a hand, so the start-up burst (buy-ins, first deals,
        # the limits service's backlog of wallet events) stays out of the window
        warm_until = time.perf_counter() + warmup
        while time.perf_counter() < warm_until and any(c.hand_no == 0 for c in clients):
            await asyncio.sleep(0.05)
        python = {k: p for k, p in services.items() if k in SERVICES}
        spies = profile_services(python, profile, f"{n}t", seconds) if profile else []
        cpu0 = {k: p.cpu_times() for k, p in procs.items()}
        for c in clients:
            c.counting = True
        t0 = time.perf_counter()
        await asyncio.sleep(seconds)
        for c in clients:
            c.counting = False
        elapsed = time.perf_counter() - t0
        cpu = {k: (sum(p.cpu_times()[:2]) - sum(cpu0[k][:2])) for k, p in procs.items()}
        for spy in spies:
            await asyncio.to_thread(spy.wait)
        for c in clients:
            c.stop = True
        await asyncio.wait(tasks, timeout=drain)
        for t in tasks:
            t.cancel()
        lat = [x for c in clients for x in c.latencies]
        hands = sum(c.hands for c in clients)
        return {
            "hands": hands,
            "rate": hands / elapsed,
            "p50": pct(lat, 0.5) * 1e3,
            "p99": pct(lat, 0.99) * 1e3,
            "actions": len(lat),
            "cpu": {k: v / max(hands, 1) * 1e3 for k, v in cpu.items()},
        }
    finally:
        await nc.close()


# ---- the engine alone ---------------------------------------------------------------------


def run_engine(n: int, seconds: float) -> dict[str, Any]:
    """The same scripted hands on `n` in-process tables, round-robin, through felt_engine only."""
    profile = get_profile("nlhe-1")
    from felt_engine.profiles import TableStakes

    stakes = TableStakes(1, 2, 0, 20, BUY_IN, None)
    tables = [{"stacks": {s: BUY_IN for s in range(1, PLAYERS + 1)}, "button": None, "hand_no": 0} for _ in range(n)]
    lat: list[float] = []
    hands = 0
    end = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < end:
        for tb in tables:
            stacks = {s: (v if v >= 2 else BUY_IN) for s, v in tb["stacks"].items()}
            tb["button"] = next_button(tb["button"], sorted(stacks))
            st = start_hand(profile, stakes, stacks, tb["button"], Deck.shuffled()).state
            k = 0
            while st.phase != "over":
                t0 = time.perf_counter()
                legal = betting.legal_actions_at(st, st.actor).to_dict()
                action, amount = choose(legal, tb["hand_no"], k)
                st = apply(st, st.actor_seat, Action(action, amount)).state
                lat.append(time.perf_counter() - t0)
                k += 1
            tb["stacks"] = dict(zip(st.seats, st.stacks))
            tb["hand_no"] += 1
            hands += 1
    elapsed = time.perf_counter() - start
    return {
        "hands": hands,
        "rate": hands / elapsed,
        "p50": pct(lat, 0.5) * 1e3,
        "p99": pct(lat, 0.99) * 1e3,
        "actions": len(lat),
    }


# ---- main ---------------------------------------------------------------------------------


def start_stack(tmp: Path) -> tuple[ServiceRunner, dict[str, Any], list[infra.Server]]:
    nats_srv = infra.start_nats(infra.free_port(), tmp / "nats", tmp / "nats.log")
    valkey = infra.start_valkey(infra.free_port(), tmp / "valkey", tmp / "valkey.log", persist=False)
    runner = ServiceRunner(nats_srv.url, valkey.url, tmp, forked=False)  # each service its own interpreter, as deployed
    env = {
        "wallet": {"felt_wallet_grant": str(10**6)},
        "table": {"felt_table_default_tables": "false", "felt_table_turn_seconds": "30"},
    }
    procs = {}
    try:
        # database_url "": each service its own SQLite file in FELT_VAR_DIR (the temp dir)
        for name in SERVICES:
            procs[name] = runner.start(name, database_url="", ready=False, **env.get(name, {}))
        for p in procs.values():
            p.wait_ready(90)
    except BaseException:
        runner.stop_all()
        valkey.stop()
        nats_srv.stop()
        raise
    return runner, {k: psutil.Process(p.process.pid) for k, p in procs.items()}, [valkey, nats_srv]


def with_nats(services: dict[str, Any], servers: list[infra.Server]) -> dict[str, Any]:
    """The services and the NATS server, for CPU accounting (not profiled: it is not Python)."""
    return {**services, "nats": psutil.Process(servers[1].process.pid)}


def ratio(a: float, b: float) -> str:
    """`a / b` as "N×", or "–" when no hand finished in the window (b = 0)."""
    return f"{a / b:,.0f}×" if b else "–"


def section(rows: list[tuple[int, dict[str, Any], dict[str, Any]]], seconds: float, quick: bool) -> str:
    command = ".venv/bin/python benchmarks/bench_table.py" + (" --quick" if quick else "")
    out = [
        "### Latest full run",
        "",
        docs_block.stamp(command),
        f"{seconds:g} s measured per row after every table finished a warm-up hand.",
        "",
        "| tables | table hands/s | engine hands/s | engine / table | table p50 ms | table p99 ms | engine p50 ms "
        "| engine p99 ms | hands/s per table | CPU ms/hand table · wallet · timer · limits (sum) | NATS · clients "
        "ms/hand | cores busy |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for n, t, e in rows:
        c = t["cpu"]
        out.append(
            f"| {n} | {t['rate']:.1f} | {e['rate']:,.0f} | {ratio(e['rate'], t['rate'])} | {t['p50']:.1f} | "
            f"{t['p99']:.1f} | {e['p50']:.3f} | {e['p99']:.3f} | {t['rate'] / n:.2f} | "
            f"{c['table']:.0f} · {c['wallet']:.0f} · {c['timer']:.0f} · {c['limits']:.0f} "
            f"({sum(c[k] for k in SERVICES):.0f}) | {c['nats']:.0f} · {c['client']:.0f} | "
            f"{sum(c.values()) * t['rate'] / 1e3:.2f} |"
        )
    return "\n".join(out) + "\n"


def growth(rows: list[tuple[int, dict[str, Any], dict[str, Any]]]) -> str:
    if len(rows) < 2 or not all(t["rate"] for _, t, _ in rows):
        return ""
    (n0, t0, _), (n1, t1, _) = rows[0], rows[-1]
    return (
        f"\nFrom {n0} to {n1} tables: total hands/s ×{t1['rate'] / t0['rate']:.1f} for ×{n1 / n0:.0f} the tables "
        f"(per table ×{(t1['rate'] / n1) / (t0['rate'] / n0):.3f}); p50 latency ×{t1['p50'] / t0['p50']:.1f}, "
        f"p99 ×{t1['p99'] / t0['p99']:.1f}; table CPU per hand ×{t1['cpu']['table'] / t0['cpu']['table']:.2f}, "
        f"wallet CPU per hand ×{t1['cpu']['wallet'] / t0['cpu']['wallet']:.2f}. Busiest service per hand at {n1} "
        f"tables: {max(SERVICES, key=t1['cpu'].get)}. With zero think time each table has one command in flight, so "
        "the mean latency is the number of tables divided by the commands per second (Little's law)."
        + (
            " A p99 near 5 s is the table's call timeout (`FELT_TABLE_CALL_TIMEOUT`) to a backlogged service."
            if t1["p99"] > 4000
            else ""
        )
        + "\n"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="4 s per row")
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--tables", default="1,10,100")
    ap.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md")
    ap.add_argument("--profile", type=Path, help="py-spy every service in each window, stacks to this folder")
    args = ap.parse_args()
    seconds = 4.0 if args.quick else args.seconds
    rows = []
    with tempfile.TemporaryDirectory(prefix="felt-bench-table-") as tmpdir:
        runner, procs, servers = start_stack(Path(tmpdir))
        print("  pids: " + ", ".join(f"{k} {p.pid}" for k, p in procs.items()), flush=True)
        try:
            for n in (int(x) for x in args.tables.split(",")):
                t = await run_tables(
                    servers[1].url,
                    with_nats(procs, servers),
                    n,
                    seconds,
                    *((8.0, 5.0) if args.quick else (60.0, 60.0)),
                    profile=args.profile,
                )
                e = run_engine(n, min(seconds, 2.0))
                rows.append((n, t, e))
                print(
                    f"  {n} tables: table {t['rate']:.1f} hands/s ({t['hands']} hands, {t['actions']} acts, "
                    f"p50 {t['p50']:.1f} ms, p99 {t['p99']:.1f} ms), engine {e['rate']:,.0f} hands/s",
                    flush=True,
                )
        finally:
            runner.stop_all()
            for s in servers:
                s.stop()
    block = section(rows, seconds, args.quick)
    print("\n" + block + growth(rows))
    if not args.no_docs:
        docs_block.write("bench_table", block)
        print("written to docs/benchmarks.md (the bench_table block)")


if __name__ == "__main__":
    asyncio.run(main())
