"""Capacity at human pace (`make load`): seated agents that think about 2 s per decision, through
the real gateway, half on REST long-polls and half on WebSockets, added step by step until the
p99 action→update time passes the target.

    .venv/bin/python benchmarks/load.py [--levels 30,60,120,...] [--step-seconds 60] [--p99-ms 150]

Everything runs on 127.0.0.1: NATS and Valkey from `felt_runtime.infra`, wallet, limits, timer,
chat, table and gateway as processes, one SQLite file per service (the stack of
bench_gateway.py). Three agents per auto-start `nlhe-1` 1/2 table, each of another owner, each
playing check/call/fold about 2 s (uniform 1.5–2.5 s, seeded) after its turn reaches it.

Action→update: from sending the action (REST `POST …/actions`, or a WebSocket `act` frame) to
the moment the same agent sees the table move — what a player waits between clicking and seeing
the table move. A socket agent sees it when its socket delivers the event number the command
returned. A REST agent long-polls with `wake=mine` by default (`--wake`: woken by its own cards
and turns, not by every event at its table), so it sees the move in the action's reply, which
carries the table after it; with `--wake any` it is timed, as before, until its own long-poll
delivers that event number. Each
step adds tables with one burst of joins (all at once, as when a room opens or a reconnect storm
hits: a join refused with 503, or not answered at all, is counted) and measures for `--step-seconds` after a warm-up: the
p50/p99, actions/s, CPU (share of one core) and RSS of every service and of this load generator.

The agents run in `--workers` processes (default: one per core), each with its own event loop, so
the load generator's own loop lag (reported per step: the p99 and the worst delay of a 50 ms sleep)
stays out of the latencies (one process for every agent would add its own lag to each of them);
one worker per core costs less CPU than more workers for the same loop lag. Each worker
freezes its heap (`felt_runtime.collector.freeze_heap`, as the services do) as a measured window
begins, so the collections in it do not walk every agent's session and socket. The main
process starts the room, creates the tables and `--owner-groups` groups of three owners (one
group by default: every agent belongs to one of three owners, as one operator running many
agents), and hands each worker its share of tables; a table's three agents belong to the owners
of one group, the groups taken in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
import websockets
from agent_http import AgentHTTP
from bench_table import profile_services
from bench_gateway import (
    cpu_seconds,
    create_table,
    pct,
    rss,
    start_stack,
)  # the same room as the gateway benchmark
from faststream.nats import NatsBroker

from felt_contracts.table import StartMode
from felt_runtime.bus import BusError
from felt_runtime.collector import freeze_heap
from tests.support.gateway import choose, new_agent, sign_up

PLAYERS = 3  # agents per table, one per owner
BUY_IN = 40
THINK = (1.5, 2.5)  # seconds an agent takes per decision
TURN_SECONDS = 15  # well above the think time: nobody times out
NO_ANSWER = "no answer"  # a join whose connection was reset or timed out, in the joins' status counts
INTERMISSION = 1.0
LAG_TICK = 0.05  # seconds: the loop-lag probe's sleep


@dataclass
class Stats:
    """Latencies of actions sent inside the measuring window, and what was refused."""

    window: tuple[float, float] = (float("inf"), float("inf"))
    latencies: list[float] = field(default_factory=list)  # ms
    by_door: dict[str, list[float]] = field(default_factory=dict)  # the same, by "rest" / "ws"
    actions: int = 0
    refused: dict[str, int] = field(default_factory=dict)

    def done(self, sent_at: float, arrived_at: float, door: str) -> None:
        if self.window[0] <= sent_at <= self.window[1]:
            self.actions += 1
            self.latencies.append((arrived_at - sent_at) * 1000)
            self.by_door.setdefault(door, []).append(self.latencies[-1])

    def refuse(self, why: str) -> None:
        self.refused[why] = self.refused.get(why, 0) + 1

    def measure(self, start: float, seconds: float) -> None:
        """A new step: forget the last one, count actions sent in [start, start + seconds]."""
        self.window, self.latencies, self.by_door = (start, start + seconds), [], {}
        self.actions, self.refused = 0, {}


@dataclass
class Player:
    table: str
    agent: dict
    seat: int
    rng: random.Random

    def my_turn(self, turn: dict | None) -> bool:
        return bool(turn) and (
            turn.get("participantId") == self.agent["participantId"] or turn.get("seat") == self.seat
        )

    async def think(self) -> None:
        await asyncio.sleep(self.rng.uniform(*THINK))


def current_turn(events: list[dict]) -> dict | None:
    """The turn still open after a batch of events (none once a later event ends the hand)."""
    for e in reversed(events):
        if e["kind"] == "turn":
            return e["turn"]
        if e["kind"] in ("hand_end", "hand_cancelled"):
            return None
    return None


async def rest_player(p: Player, url: str, stats: Stats, stop: asyncio.Event, wake: str) -> None:
    """Long-poll the table's events; on my turn think, act, and time until I see the table move
    (`wake=mine`: the action's reply; `any`: my poll shows the action's event)."""
    async with AgentHTTP(url) as http:
        await rest_play(p, http, stats, stop, wake)


async def rest_play(p: Player, http: AgentHTTP, stats: Stats, stop: asyncio.Event, wake: str) -> None:
    after, waiting = 0, None  # waiting: (the seq my last action produced, when I sent it)
    acted: set[tuple[str, int]] = set()
    path = f"/api/v2/poker/tables/{p.table}"
    params = {"wait": 10, "wake": wake}
    while not stop.is_set():
        status, got = await http.get(f"{path}/events", params={"after": after, **params}, headers=p.agent["headers"])
        now = time.perf_counter()
        if status != 200:
            stats.refuse(f"events {status}")
            await asyncio.sleep(0.5)
            continue
        events = got["events"]
        if not events:
            continue
        after = events[-1]["seq"]
        if waiting and after >= waiting[0]:
            stats.done(waiting[1], now, "rest")
            waiting = None
        turn = current_turn(events)
        if not p.my_turn(turn) or (turn["handId"], turn["turnId"]) in acted:
            continue
        acted.add((turn["handId"], turn["turnId"]))
        await p.think()
        body = choose(turn["legalActions"]) | {"handId": turn["handId"], "turnId": turn["turnId"]}
        sent = time.perf_counter()
        key = f"{turn['handId']}:{turn['turnId']}"
        status, got = await http.post(f"{path}/actions", body, headers={**p.agent["headers"], "Idempotency-Key": key})
        if status == 200 and wake == "mine":
            stats.done(sent, time.perf_counter(), "rest")
        elif status == 200:
            waiting = (got["seq"], sent)
        else:
            stats.refuse(f"act {status} {got.get('code')}")


async def ws_player(p: Player, ws_url: str, stats: Stats, stop: asyncio.Event) -> None:
    """The same on a WebSocket: events and `result` frames may arrive in either order."""
    async with websockets.connect(f"{ws_url}?token={p.agent['apiKey']}", ping_interval=None, max_queue=None) as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
        await ws.send(json.dumps({"type": "subscribe", "tableId": p.table}))
        arrived: dict[int, float] = {}  # event seq -> when it reached me (recent ones)
        sent_at: dict[str, float] = {}  # requestId -> when I sent it
        expected: dict[int, float] = {}  # seq my action produced -> when I sent it
        acted: set[tuple[str, int]] = set()
        acting: set[asyncio.Task] = set()  # thinking or sending; cancelled when the socket closes
        last = 0

        async def act(turn: dict) -> None:
            await p.think()
            rid = f"{turn['handId']}:{turn['turnId']}"
            sent_at[rid] = time.perf_counter()
            action = choose(turn["legalActions"])
            frame = {"type": "act", "tableId": p.table, "action": action, "requestId": rid}
            await ws.send(json.dumps(frame | {"handId": turn["handId"], "turnId": turn["turnId"]}))

        async def close_on_stop() -> None:
            await stop.wait()
            await ws.close()

        closing = asyncio.create_task(close_on_stop())  # ends the loop below; no task per frame
        async for raw in ws:
            now, frame = time.perf_counter(), orjson.loads(raw)
            kind = frame["type"]
            if kind == "event":
                last = max(last, frame["seq"])
                arrived[frame["seq"]] = now
                for seq in [s for s in expected if s <= last]:
                    stats.done(expected.pop(seq), arrived.get(seq, now), "ws")
                turn = frame["event"].get("turn") if frame["event"]["kind"] == "turn" else None
                if p.my_turn(turn) and (turn["handId"], turn["turnId"]) not in acted:
                    acted.add((turn["handId"], turn["turnId"]))
                    task = asyncio.create_task(act(turn))
                    acting.add(task)
                    task.add_done_callback(acting.discard)
                if len(arrived) > 200:
                    arrived = {s: t for s, t in arrived.items() if s > last - 50}
            elif kind == "result" and frame.get("requestId") in sent_at:
                t0 = sent_at.pop(frame["requestId"])
                if frame["seq"] <= last:
                    stats.done(t0, arrived.get(frame["seq"], now), "ws")
                else:
                    expected[frame["seq"]] = t0
            elif kind == "error" and frame.get("requestId") in sent_at:
                sent_at.pop(frame["requestId"])
                stats.refuse(f"act {frame['code']}")
        closing.cancel()
        for task in acting:
            task.cancel()


async def seat_tables(
    http: httpx.AsyncClient, groups: list[list[dict]], tables: list[str], seed: int
) -> tuple[list[Player], Counter[str]]:
    """Agents for new tables, then every join at once; join statuses counted."""
    sem = asyncio.Semaphore(16)

    async def agent(owner: dict) -> dict:
        async with sem:
            return await new_agent(http, owner, "load")

    agents = await asyncio.gather(*(agent(o) for i, _ in enumerate(tables) for o in groups[i % len(groups)]))
    pairs = [(t, agents[i * PLAYERS + j]) for i, t in enumerate(tables) for j in range(PLAYERS)]
    statuses: Counter[str] = Counter()

    async def join(table: str, a: dict) -> Player | None:
        try:
            r = await http.post(f"/api/v2/poker/tables/{table}/join", json={"buyIn": BUY_IN}, headers=a["headers"])
        except httpx.TransportError:  # reset or timed out: not served, counted like a refusal
            statuses[NO_ANSWER] += 1
            return None
        statuses[str(r.status_code)] += 1
        if r.status_code != 200:
            return None
        return Player(table, a, r.json()["seat"], random.Random(f"{seed}:{a['participantId']}"))

    seated = await asyncio.gather(*(join(t, a) for t, a in pairs))
    return [p for p in seated if p is not None], statuses


def cpu_rss(proc: Any) -> tuple[float, int]:
    """CPU seconds and RSS of a service, or summed over a list of processes (the load generator's;
    NATS and Valkey as one-item lists)."""
    if not isinstance(proc, list):
        return cpu_seconds(proc), rss(proc)
    cpu, mem = 0.0, 0
    for p in proc:
        t = p.cpu_times()
        cpu, mem = cpu + t.user + t.system, mem + p.memory_info().rss
    return cpu, mem


def usage(procs: dict[str, Any], since: dict[str, float], seconds: float) -> dict[str, dict[str, float]]:
    out = {}
    for name, proc in procs.items():
        cpu, mem = cpu_rss(proc)
        out[name] = {"cpu": (cpu - since[name]) / seconds, "rss_mb": mem / 2**20}
    return out


def cpu_now(procs: dict[str, Any]) -> dict[str, float]:
    return {n: cpu_rss(p)[0] for n, p in procs.items()}


async def lag_probe(lags: list[float], stop: asyncio.Event) -> None:
    """How late this process's loop wakes from a short sleep (its own share of every latency)."""
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        lags.append((time.perf_counter() - t - LAG_TICK) * 1000)


async def work(conn: Any, url: str, ws_url: str, owners: list[list[dict]], seed: int, wake: str) -> None:
    """One worker process: seat the tables it is given, play them, report each measured step."""
    stop, stats = asyncio.Event(), Stats()
    lags: list[float] = []
    tasks: list[asyncio.Task] = [asyncio.create_task(lag_probe(lags, stop))]
    players: list[Player] = []
    limits = httpx.Limits(max_connections=4000, max_keepalive_connections=4000)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        while True:
            what, arg = await asyncio.to_thread(conn.recv)
            if what == "seat":
                new, joins = await seat_tables(http, owners, arg, seed)
                for i, p in enumerate(new, start=len(players)):
                    coro = ws_player(p, ws_url, stats, stop) if i % 2 else rest_player(p, url, stats, stop, wake)
                    tasks.append(asyncio.create_task(coro))
                players += new
                conn.send((len(new), joins))
            elif what == "measure":
                freeze_heap()  # the agents' sessions and sockets, out of every later collection
                await asyncio.sleep(2 * LAG_TICK)  # the probe wakes late from the freeze before lags are cleared
                stats.measure(time.perf_counter(), arg)
                lags.clear()
            elif what == "report":
                conn.send((stats.latencies, stats.actions, stats.refused, lags, stats.by_door))
            else:
                break
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


def worker(conn: Any, url: str, ws_url: str, owners: list[list[dict]], seed: int, wake: str) -> None:
    asyncio.run(work(conn, url, ws_url, owners, seed, wake))


class Workers:
    """The agent processes, spoken to over pipes (each call: every worker, concurrently)."""

    def __init__(self, n: int, url: str, ws_url: str, owners: list[list[dict]], seed: int, wake: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conns, self.procs = [], []
        for i in range(n):
            here, there = ctx.Pipe()
            proc = ctx.Process(target=worker, args=(there, url, ws_url, owners, seed * 1000 + i, wake), daemon=True)
            proc.start()
            self.conns.append(here)
            self.procs.append(proc)
        self.ps = [psutil.Process(), *(psutil.Process(p.pid) for p in self.procs)]

    async def ask(self, messages: list[tuple[str, Any]], answer: bool = True) -> list[Any]:
        for c, m in zip(self.conns, messages):
            c.send(m)
        return list(await asyncio.gather(*(asyncio.to_thread(c.recv) for c in self.conns))) if answer else []

    def stop(self) -> None:
        for c in self.conns:
            c.send(("stop", None))
        for p in self.procs:
            p.join(10)
            if p.is_alive():
                p.kill()


async def run(
    levels: list[int],
    step_seconds: float,
    warmup: float,
    target_ms: float,
    seed: int,
    n_workers: int,
    owner_groups: int = 1,
    wake: str = "mine",
    profile: Path | None = None,
) -> list[dict]:
    """`profile`: py-spy every service in each measured window (bench_table.profile_services)."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="felt-load-") as tmpdir:
        stack, servers = start_stack(Path(tmpdir), nice=True)
        bus = NatsBroker(stack.runner.nats_url)
        await bus.connect()
        workers: Workers | None = None
        try:
            async with httpx.AsyncClient(base_url=stack.url, timeout=60) as http:
                owners = [[await sign_up(http) for _ in range(PLAYERS)] for _ in range(owner_groups)]
            workers = Workers(n_workers, stack.url, stack.ws_url, owners, seed, wake)
            procs: dict[str, Any] = {
                **stack.procs,
                "gateway": stack.gateway,
                **{name: [psutil.Process(srv.process.pid)] for name, srv in zip(("Valkey", "NATS"), servers)},
                "load generator": workers.ps,
            }
            n_tables = 0
            for level in levels:
                try:
                    new = [
                        await create_table(
                            bus, start_mode=StartMode.AUTO, turn_seconds=TURN_SECONDS, intermission_seconds=INTERMISSION
                        )
                        for _ in range(max(0, level // PLAYERS - n_tables))
                    ]
                except BusError as exc:  # a saturated room: the steps so far are the result
                    print(f"step {level}: the tables could not be created ({exc.message}); stopping", flush=True)
                    break
                n_tables += len(new)
                t0 = time.perf_counter()
                seated = await workers.ask([("seat", new[i::n_workers]) for i in range(n_workers)])
                join_s = time.perf_counter() - t0
                await asyncio.sleep(warmup)
                since, start = cpu_now(procs), time.perf_counter()
                await workers.ask([("measure", step_seconds)] * n_workers, answer=False)
                services = {k: v.process for k, v in {**stack.procs, "gateway": stack.gateway}.items()}
                spies = profile_services(services, profile, f"{level}p", step_seconds) if profile else []
                await asyncio.sleep(step_seconds + 1.0)
                for spy in spies:
                    spy.wait()
                used = usage(procs, since, time.perf_counter() - start)
                reports = await workers.ask([("report", None)] * n_workers)
                lonely = await lonely_round_trip()
                latencies = [x for r in reports for x in r[0]]
                refused: dict[str, int] = {}
                for r in reports:
                    for k, v in r[2].items():
                        refused[k] = refused.get(k, 0) + v
                joins = sum((Counter(js) for _, js in seated), Counter[str]())
                row = {
                    "players": sum(w[0] for w in seated) + (rows[-1]["players"] if rows else 0),
                    "joins": joins,
                    "join_s": join_s,
                    "actions_per_s": sum(r[1] for r in reports) / step_seconds,
                    "p50": pct(latencies, 0.5),
                    "p99": pct(latencies, 0.99),
                    "p99_by_door": {
                        door: pct([x for r in reports for x in r[4].get(door, [])], 0.99) for door in ("rest", "ws")
                    },
                    "refused": refused,
                    "loop_lag_ms": {
                        "p99": max(pct(r[3], 0.99) for r in reports),
                        "max": max(max(r[3], default=0.0) for r in reports),
                    },
                    "usage": used,
                    "load": psutil.getloadavg(),
                    "lonely_us": lonely,
                }
                row["room_ms_per_action"] = room_ms_per_action(row)
                rows.append(row)
                print(json.dumps(row, default=str), flush=True)
                if row["p99"] > target_ms:
                    break
        finally:
            if workers is not None:
                workers.stop()
            await bus.stop()
            stack.runner.stop_all()
            for s in servers:
                s.stop()
    return rows


async def lonely_round_trip() -> float:
    """CPU µs of one lonely NATS request–reply (requester, responder, their own nats-server),
    measured by `bench_wakeups.py --lonely` on the machine as the step left it: the unit of the
    room's CPU per action."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).with_name("bench_wakeups.py")),
        "--lonely",
        "1000",
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    return float(json.loads(out)["sum_us"])


def room_ms_per_action(row: dict) -> float:
    """Every process of the room (not the load generator): CPU ms per action (NaN at level 0,
    whose row is the idle room's CPU)."""
    cores = sum(u["cpu"] for name, u in row["usage"].items() if name != "load generator")
    return cores / row["actions_per_s"] * 1e3 if row["actions_per_s"] else float("nan")


def markdown(rows: list[dict]) -> str:
    names = list(rows[0]["usage"]) if rows else []
    head = (
        "| seated players | joins (status: count) | actions/s | p50 (ms) | p99 (ms) | p99 REST / WS (ms) | "
        + " | ".join(f"{n} CPU / RSS MB" for n in names)
    )
    tail = " | load generator loop lag p99 / max (ms) | room CPU ms / action | lonely round trip µs | ratio |"
    out = [head + tail, "|" + "---:|" * (10 + len(names))]
    for r in rows:
        joins = ", ".join(f"{k}: {v}" for k, v in sorted(r["joins"].items()))
        cells = " | ".join(f"{r['usage'][n]['cpu']:.2f} / {r['usage'][n]['rss_mb']:.0f}" for n in names)
        lag = r["loop_lag_ms"]
        out.append(
            f"| {r['players']} | {joins} | {r['actions_per_s']:.1f} | {r['p50']:.0f} | {r['p99']:.0f} "
            f"| {r['p99_by_door']['rest']:.0f} / {r['p99_by_door']['ws']:.0f} | {cells} "
            f"| {lag['p99']:.0f} / {lag['max']:.0f} | {r['room_ms_per_action']:.2f} | {r['lonely_us']:.0f} "
            f"| {r['room_ms_per_action'] * 1e3 / r['lonely_us']:.1f} |"
        )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="30,60,90,120,180,240,360,480,720,1000,1500,2000")
    ap.add_argument("--step-seconds", type=float, default=60)
    ap.add_argument("--warmup", type=float, default=15)
    ap.add_argument("--p99-ms", type=float, default=150, help="stop after the first step over this")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="load generator processes")
    ap.add_argument("--owner-groups", type=int, default=1, help="groups of three owners the agents belong to")
    ap.add_argument("--wake", choices=("mine", "any"), default="mine", help="the REST agents' long-poll wake")
    ap.add_argument("--profile", type=Path, help="py-spy every service in each measured window, stacks to this folder")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    rows = asyncio.run(
        run(
            levels,
            args.step_seconds,
            args.warmup,
            args.p99_ms,
            args.seed,
            args.workers,
            args.owner_groups,
            args.wake,
            args.profile,
        )
    )
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
