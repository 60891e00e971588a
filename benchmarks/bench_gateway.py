"""Gateway performance: WebSocket connections one gateway process holds, and REST actions per
second with action→event latency side by side with the same actions sent straight on the bus.

    .venv/bin/python benchmarks/bench_gateway.py [--quick] [--no-docs]

Everything runs for real on 127.0.0.1: NATS and Valkey from `felt_runtime.infra`, the wallet,
limits, timer, chat, table and gateway services as subprocesses (tests/support/services.py),
one SQLite file per service in a temp dir. The client helpers (sign up, create agents, the
check/call/fold policy) are the gateway tests' own.

1. Connections: authenticated sockets (agent API keys, each socket a distinct
   (participant, table) pair) subscribed to idle tables, ramped 100 → 500 → 1000 → 2000; at each
   level every socket must answer a `ping` with a `pong`; the gateway's RSS growth over its
   pre-ramp baseline per socket; one table event fanned out to every socket. Ramping stops at
   the first level with failures or when the time budget is spent.
2. Actions: 3 agents per table (auto-start tables, short intermission) play check/call/fold.
   Gateway: each agent long-polls `GET …/events` and acts with `POST …/actions` (Idempotency-Key,
   handId/turnId); a watcher WebSocket per table records when each numbered event arrives.
   Bus: the same `Act` commands as `TableRequest`s on `felt.table.cmd.<id>` (what the gateway
   sends), turns and events from the table's public event subject. Latency = from sending the
   action to receiving the event whose number the command returned (the last event it produced).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the tests' helpers (tests/ is a package at the repo root)

import httpx
import nats
import orjson
import psutil
import websockets
from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.table import (
    CreateTable,
    Join,
    Leave,
    ParticipantKind,
    StartMode,
    TableConfig,
    TableRequest,
    TableResult,
    TableSummary,
)
from felt_gateway.commands import act as make_act
from felt_gateway.identity import Principal
from felt_runtime import catalog, infra
from felt_runtime.bus import BusError, call
from agent_http import AgentHTTP
from bench_table import profile_services
import docs_block
from tests.support.gateway import Stack, choose, new_agent, sign_up
from tests.support.services import ServiceProcess, ServiceRunner

PLAYERS = 3  # agents per table (one owner each: one participant per owner per table)
TURN_SECONDS = "3"  # a stalled agent is auto-folded quickly
INTERMISSION = 0.05  # auto-start tables: the next hand is dealt right away


# --- helpers ------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def rss(proc: ServiceProcess) -> int:
    assert proc.process is not None
    return psutil.Process(proc.process.pid).memory_info().rss


def cpu_seconds(proc: ServiceProcess) -> float:
    assert proc.process is not None
    t = psutil.Process(proc.process.pid).cpu_times()
    return t.user + t.system


async def create_table(bus: NatsBroker, **cfg: Any) -> str:
    table_id = f"b{uuid.uuid4().hex[:10]}"
    base = dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=200, seats=6)
    await call(
        bus, subjects.TABLE_CREATE, CreateTable(config=TableConfig(table_id=table_id, **{**base, **cfg})), TableSummary
    )
    return table_id


def start_stack(tmp: Path, nice: bool = False) -> tuple[Stack, list[infra.Server]]:
    """`nice`: each service at its `catalog.NICE`, as `felt up` starts it (`make load` measures
    that room; the zero-think-time benchmarks measure the services at equal priority)."""
    nats_srv = infra.start_nats(infra.free_port(), tmp / "nats", tmp / "nats.log")
    valkey = infra.start_valkey(infra.free_port(), tmp / "valkey", tmp / "valkey.log", persist=False)
    runner = ServiceRunner(nats_srv.url, valkey.url, tmp, forked=False)  # each service its own interpreter, as deployed
    env: dict[str, dict[str, str]] = {
        "wallet": {"felt_wallet_grant": str(10**6)},
        "table": {
            "felt_table_default_tables": "false",
            "felt_table_turn_seconds": TURN_SECONDS,
            "felt_table_grace_seconds": "10",
            "felt_table_intermission_seconds": str(INTERMISSION),
        },
        "gateway": {"felt_log_level": "WARNING"},
    }
    procs: dict[str, ServiceProcess] = {}
    try:
        # database_url "": each service its own SQLite file in FELT_VAR_DIR (the temp dir)
        for name in ("wallet", "limits", "timer", "chat", "table", "gateway"):
            niced = {"felt_nice": str(catalog.nice(name))} if nice else {}
            procs[name] = runner.start(name, database_url="", ready=False, **env.get(name, {}), **niced)
        for proc in procs.values():
            proc.wait_ready(90)
        gw = procs.pop("gateway")
    except BaseException:
        runner.stop_all()
        valkey.stop()
        nats_srv.stop()
        raise
    return Stack(gw, runner, "", procs), [valkey, nats_srv]


# --- 1. connections -----------------------------------------------------------------------------


class Sock:
    """One client socket: reads frames in the background, counts pongs and event numbers."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.pongs = 0
        self.last_seq = 0
        self.event_at: float | None = None
        self.closed = False
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                t = frame.get("type")
                if t == "pong":
                    self.pongs += 1
                elif t == "event":
                    self.last_seq = max(self.last_seq, frame["seq"])
                    self.event_at = time.perf_counter()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True


async def open_socket(ws_url: str, key: str, table_id: str) -> Sock:
    ws = await websockets.connect(f"{ws_url}?token={key}", ping_interval=None, open_timeout=30, max_queue=64)
    hello = json.loads(await asyncio.wait_for(ws.recv(), 30))
    if hello.get("type") != "hello":
        raise RuntimeError(f"no hello: {hello}")
    await ws.send(json.dumps({"type": "subscribe", "tableId": table_id, "requestId": "s"}))
    last = 0
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if frame["type"] == "snapshot":
            last = frame["seq"]
        elif frame["type"] == "subscribed":
            last = max(last, frame["seq"])
            break
        elif frame["type"] == "error":
            raise RuntimeError(f"subscribe refused: {frame}")
    sock = Sock(ws)
    sock.last_seq = last
    return sock


async def connections(
    stack: Stack,
    http: httpx.AsyncClient,
    bus: NatsBroker,
    levels: list[int],
    budget: float,
    n_tables: int,
    participants: int,
) -> list[dict]:
    started = time.perf_counter()
    owner = await sign_up(http)
    pool: list[dict] = []
    sem = asyncio.Semaphore(20)

    async def mk() -> None:
        async with sem:
            pool.append(await new_agent(http, owner, "watcher"))

    await asyncio.gather(*(mk() for _ in range(participants)))
    tables = [await create_table(bus) for _ in range(n_tables)]
    print(f"  {participants} agents and {n_tables} tables ready in {time.perf_counter() - started:.1f} s", flush=True)
    # one agent per table drives a single table event per level (it sits down / stands up)
    driver_owner = await sign_up(http)
    drivers = [await new_agent(http, driver_owner, "driver") for _ in tables]
    for _ in range(3):  # settle: let the gateway finish warming up before the baseline
        await asyncio.sleep(0.5)
    base_rss = rss(stack.gateway)
    socks: list[Sock] = []
    failures = 0
    rows: list[dict] = []
    csem = asyncio.Semaphore(32)

    async def connect_one(i: int) -> None:
        nonlocal failures
        who = pool[i % participants]
        table = tables[(i // participants) % n_tables]  # distinct (participant, table) pairs
        async with csem:
            try:
                socks.append(await open_socket(stack.ws_url, who["apiKey"], table))
            except Exception as exc:  # noqa: BLE001 - counted, reported
                failures += 1
                if failures <= 3:
                    print(f"  connect failed: {type(exc).__name__}: {exc}", flush=True)

    seated = False
    for level in levels:
        if time.perf_counter() - started > budget:
            print(f"  time budget ({budget:.0f} s) spent; not ramping to {level}", flush=True)
            break
        t0 = time.perf_counter()
        before = len(socks) + failures
        await asyncio.gather(*(connect_one(i) for i in range(before, level)))
        ramp_s = time.perf_counter() - t0
        # every socket answers a ping
        live = [s for s in socks if not s.closed]
        want = {id(s): s.pongs + 1 for s in live}
        t1 = time.perf_counter()
        await asyncio.gather(
            *(s.ws.send(json.dumps({"type": "ping", "t": level})) for s in live), return_exceptions=True
        )
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline and sum(1 for s in live if s.pongs >= want[id(s)]) < len(live):
            await asyncio.sleep(0.05)
        ping_s = time.perf_counter() - t1
        ponged = sum(1 for s in live if s.pongs >= want[id(s)] and not s.closed)
        # one table event on every table (a driver sits down / stands up): time until every socket has it
        marks = {id(s): s.last_seq for s in live}
        t2 = time.perf_counter()
        for table, driver in zip(tables, drivers):
            path = f"/api/v2/poker/tables/{table}/" + ("leave" if seated else "join")
            r = await http.post(path, json=None if seated else {"buyIn": 20}, headers=driver["headers"])
            if r.status_code != 200:
                print(f"  driver {path}: {r.status_code} {r.text[:200]}", flush=True)
        seated = not seated
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline and sum(1 for s in live if s.last_seq > marks[id(s)]) < len(live):
            await asyncio.sleep(0.05)
        got = [s for s in live if s.last_seq > marks[id(s)]]
        fanout_s = (max(s.event_at for s in got) - t2) if got else float("nan")  # type: ignore[type-var]  # event_at is set on every stream in `got`
        await asyncio.sleep(0.5)
        mem = rss(stack.gateway)
        row = dict(
            target=level,
            held=ponged,
            failed=failures + (len(live) - ponged),
            ramp_s=ramp_s,
            rate=(level - before) / ramp_s if ramp_s else 0.0,
            ping_s=ping_s,
            fanout_s=fanout_s,
            fanout_got=len(got),
            rss_mb=mem / 2**20,
            per_conn_kb=(mem - base_rss) / max(1, ponged) / 1024,
        )
        rows.append(row)
        print(
            f"  {level:5d} sockets: held {ponged}, failed {row['failed']}, connect {row['rate']:.0f}/s, "
            f"all pongs in {ping_s:.2f} s, 1 event to all in {fanout_s:.2f} s ({len(got)}), "
            f"RSS {row['rss_mb']:.0f} MB ({row['per_conn_kb']:.1f} KB/socket)",
            flush=True,
        )
        if row["failed"]:
            print("  failures: stop ramping", flush=True)
            break
    await asyncio.gather(*(s.ws.close() for s in socks), return_exceptions=True)
    for s in socks:
        s.task.cancel()
    if seated:
        for table, driver in zip(tables, drivers):
            await http.post(f"/api/v2/poker/tables/{table}/leave", headers=driver["headers"])
    rows[0]["base_rss_mb"] = base_rss / 2**20
    return rows


# --- 2. actions ---------------------------------------------------------------------------------


@dataclass
class Run:
    """One measured phase: actions (send time, table, the seq the command returned) and when
    each numbered event arrived where it is observed."""

    start: float = 0.0
    end: float = 0.0
    stop: bool = False
    actions: list[tuple[str, float, int]] = field(default_factory=list)
    refused: int = 0
    why: dict[str, int] = field(default_factory=dict)  # refusals by code

    def refuse(self, code: str) -> None:
        self.refused += 1
        self.why[code] = self.why.get(code, 0) + 1

    arrival: dict[str, dict[int, float]] = field(default_factory=dict)  # watcher WS / bus subscription
    arrival_lp: dict[str, dict[int, float]] = field(default_factory=dict)  # agents' long-polls
    hand_ends: list[float] = field(default_factory=list)  # when each hand's `hand_end` was seen (watcher / bus)

    def seen(self, where: dict[str, dict[int, float]], table: str, seq: int, at: float) -> None:
        d = where.setdefault(table, {})
        if seq not in d or at < d[seq]:
            d[seq] = at

    def result(self, where: dict[str, dict[int, float]] | None = None) -> dict:
        where = self.arrival if where is None else where
        inside = [(t, t0, s) for t, t0, s in self.actions if self.start <= t0 <= self.end]
        lat = [(where[t][s] - t0) * 1000 for t, t0, s in inside if s in where.get(t, {})]
        return dict(
            actions=len(inside),
            rate=len(inside) / (self.end - self.start),
            hands=sum(self.start <= at <= self.end for at in self.hand_ends) / (self.end - self.start),
            p50=pct(lat, 0.5),
            p99=pct(lat, 0.99),
            samples=len(lat),
            refused=self.refused,
            why=self.why,
        )


async def gateway_phase(
    stack: Stack,
    http: httpx.AsyncClient,
    bus: NatsBroker,
    n_tables: int,
    seconds: float,
    warmup: float,
    profile: Path | None = None,
    wake: str = "mine",
) -> Run:
    """`wake`: the agents' long-poll (`mine`: woken by their own cards and turns; `any`: by every event)."""
    owners = [await sign_up(http) for _ in range(PLAYERS + 1)]
    watcher = owners[-1]
    tables = [
        await create_table(bus, start_mode=StartMode.AUTO, intermission_seconds=INTERMISSION) for _ in range(n_tables)
    ]
    run = Run()
    # the watcher's sockets (one per table) record when each event arrives
    wsocks = []
    for table in tables:
        ws = await websockets.connect(f"{stack.ws_url}?token={watcher['token']}", ping_interval=None, max_queue=None)
        assert json.loads(await ws.recv())["type"] == "hello"
        await ws.send(json.dumps({"type": "subscribe", "tableId": table}))
        wsocks.append(ws)

    async def watch(ws: Any) -> None:
        try:
            async for raw in ws:
                now = time.perf_counter()
                f = orjson.loads(raw)
                if f["type"] == "event":
                    run.seen(run.arrival, f["tableId"], f["seq"], now)
                    if f["event"]["kind"] == "hand_end":
                        run.hand_ends.append(now)
        except websockets.ConnectionClosed:
            pass

    watchers = [asyncio.create_task(watch(ws)) for ws in wsocks]
    seats: list[tuple[str, dict]] = []
    for table in tables:
        for o in owners[:PLAYERS]:
            a = await new_agent(http, o, "player")
            r = await http.post(f"/api/v2/poker/tables/{table}/join", json={"buyIn": 200}, headers=a["headers"])
            assert r.status_code == 200, r.text
            seats.append((table, a))

    async def agent(table: str, a: dict) -> None:
        async with AgentHTTP(stack.url) as own:
            await play(own, table, a)

    async def play(http: AgentHTTP, table: str, a: dict) -> None:
        me = a["participantId"]
        after = 0
        acted: set[tuple[str, int]] = set()
        while not run.stop:
            status, got = await http.get(
                f"/api/v2/poker/tables/{table}/events",
                params={"after": after, "wait": 2, "wake": wake},
                headers=a["headers"],
            )
            now = time.perf_counter()
            if status != 200:
                run.refuse(f"events {status}")
                await asyncio.sleep(0.1)
                continue
            evs = got["events"]
            if not evs:
                continue
            after = evs[-1]["seq"]
            turn = None
            for ev in evs:
                run.seen(run.arrival_lp, table, ev["seq"], now)
                if ev["kind"] == "turn":
                    turn = ev["turn"]
                elif ev["kind"] in ("hand_end", "hand_cancelled"):
                    turn = None
            if turn is None or turn.get("participantId") != me or (turn["handId"], turn["turnId"]) in acted or run.stop:
                continue
            acted.add((turn["handId"], turn["turnId"]))
            body = choose(turn["legalActions"]) | {"handId": turn["handId"], "turnId": turn["turnId"]}
            t0 = time.perf_counter()
            status, got = await http.post(
                f"/api/v2/poker/tables/{table}/actions",
                body,
                headers={**a["headers"], "Idempotency-Key": f"{turn['handId']}:{turn['turnId']}"},
            )
            if status == 200:
                run.actions.append((table, t0, got["seq"]))
            else:
                run.refuse(f"{status} {got.get('code')}")

    tasks = [asyncio.create_task(agent(t, a)) for t, a in seats]
    watched = {"gateway": stack.gateway.process, "table": stack.procs["table"].process, "client": psutil.Process()}
    await measure(
        run,
        seconds,
        warmup,
        (lambda: profile_services(watched, profile, f"{n_tables}t-{wake}", seconds)) if profile else None,
    )
    await asyncio.gather(*tasks, return_exceptions=True)
    for table, a in seats:
        await http.post(f"/api/v2/poker/tables/{table}/leave", headers=a["headers"])
    for ws in wsocks:
        await ws.close()
    for w in watchers:
        w.cancel()
    return run


async def measure(run: Run, seconds: float, warmup: float, profile: Callable[[], list[Any]] | None = None) -> None:
    """Warm up, then the measured window (`profile`: starts py-spy for it; waited for after)."""
    await asyncio.sleep(warmup)
    spies = profile() if profile else []
    run.start = time.perf_counter()
    await asyncio.sleep(seconds)
    run.end = time.perf_counter()
    for spy in spies:
        await asyncio.to_thread(spy.wait)
    await asyncio.sleep(0.5)  # events of the last actions land
    run.stop = True


async def bus_phase(
    stack: Stack, http: httpx.AsyncClient, bus: NatsBroker, n_tables: int, seconds: float, warmup: float
) -> Run:
    owners = [await sign_up(http) for _ in range(PLAYERS)]
    tables = [
        await create_table(bus, start_mode=StartMode.AUTO, intermission_seconds=INTERMISSION) for _ in range(n_tables)
    ]
    run = Run()
    nc = await nats.connect(stack.runner.nats_url)
    inflight: set[asyncio.Task] = set()
    acted: set[tuple[str, str, int]] = set()

    async def act(table: str, pid: str, turn: dict) -> None:
        legal = turn["legal_actions"]
        action = choose({"check": legal["check"], "call": legal["call"]})["type"]
        cmd = make_act(
            Principal("", pid, "AGENT", "api_key"), action, None, (), turn["hand_id"], turn["turn_id"]
        )  # what the gateway sends
        t0 = time.perf_counter()
        try:
            res = await call(
                bus,
                subjects.table_command(table),
                TableRequest(table_id=table, command=cmd, message_id=f"act:{pid}:{turn['hand_id']}:{turn['turn_id']}"),
                TableResult,
            )
            run.actions.append((table, t0, res.seq))
        except BusError as exc:
            run.refuse(exc.code.value)

    async def on_event(msg: Any) -> None:
        now = time.perf_counter()
        ev = json.loads(msg.data)
        table = ev["table_id"]
        run.seen(run.arrival, table, ev["seq"], now)
        if ev["kind"] == "hand_end":
            run.hand_ends.append(now)
        turn = ev.get("turn")
        if ev["kind"] == "turn" and turn and not run.stop:
            key = (table, turn["hand_id"], turn["turn_id"])
            if key not in acted and turn.get("participant_id") in players.get(table, ()):
                acted.add(key)
                task = asyncio.create_task(act(table, turn["participant_id"], turn))
                inflight.add(task)
                task.add_done_callback(inflight.discard)

    players: dict[str, set[str]] = {}
    for table in tables:
        await nc.subscribe(subjects.table_public_events(table), cb=on_event)
    await nc.flush()
    seated: list[tuple[str, str]] = []
    for table in tables:
        for o in owners:
            a = await new_agent(http, o, "player")
            await call(
                bus,
                subjects.table_command(table),
                TableRequest(
                    table_id=table,
                    command=Join(
                        participant_id=a["participantId"],
                        owner_id=o["ownerId"],
                        kind=ParticipantKind.AGENT,
                        name="player",
                        buy_in=200,
                    ),
                ),
                TableResult,
            )
            players.setdefault(table, set()).add(a["participantId"])
            seated.append((table, a["participantId"]))
    await measure(run, seconds, warmup)
    await asyncio.gather(*list(inflight), return_exceptions=True)
    for table, pid in seated:
        try:
            await call(
                bus,
                subjects.table_command(table),
                TableRequest(table_id=table, command=Leave(participant_id=pid)),
                TableResult,
            )
        except BusError:
            pass
    await nc.close()
    return run


# --- report ------------------------------------------------------------------------------------


def conn_table(rows: list[dict]) -> str:
    out = [
        "| sockets (target) | held (ping → pong) | failed | connect+subscribe /s | all pongs (s) | 1 event to all (s) | gateway RSS (MB) | RSS per socket (KB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['target']:,} | {r['held']:,} | {r['failed']} | {r['rate']:.0f} | {r['ping_s']:.2f} | "
            f"{r['fanout_s']:.2f} | {r['rss_mb']:.0f} | {r['per_conn_kb']:.1f} |"
        )
    return "\n".join(out)


def act_table(results: list[tuple[int, dict, dict, dict]]) -> str:
    out = [
        "| tables × 3 agents | path | actions/s | hands/s | p50 action→event (ms) | p99 (ms) | refused |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for n, gw, lp, bus in results:
        out.append(
            f"| {n} | gateway REST, event on a watcher WebSocket | {gw['rate']:.0f} | {gw['hands']:.1f} | {gw['p50']:.1f} | {gw['p99']:.1f} | {gw['refused']} |"
        )
        out.append(
            f"| {n} | gateway REST, event on the agents' long-poll | ″ | ″ | {lp['p50']:.1f} | {lp['p99']:.1f} | |"
        )
        out.append(
            f"| {n} | bus (`felt.table.cmd.<id>`), event on the NATS subject | {bus['rate']:.0f} | {bus['hands']:.1f} | {bus['p50']:.1f} | {bus['p99']:.1f} | {bus['refused']} |"
        )
        out.append(
            f"| {n} | **ratio gateway / bus** | **{gw['rate'] / bus['rate']:.2f}×** | {gw['hands'] / max(bus['hands'], 1e-9):.2f}× | {gw['p50'] / bus['p50']:.1f}× | {gw['p99'] / bus['p99']:.1f}× | |"
        )
    return "\n".join(out)


def section(mode: str, n_tables: int, conn_rows: list[dict]) -> str:
    """The block of docs/benchmarks.md: the connections part (the actions part is printed)."""
    base = conn_rows[0].get("base_rss_mb", 0.0) if conn_rows else 0.0
    command = ".venv/bin/python benchmarks/bench_gateway.py" + (" --quick" if mode == "quick" else "")
    return f"""### Latest full run: connections

{docs_block.stamp(command)} {n_tables} idle tables for the sockets; RSS per socket is the
gateway's growth over its {base:.0f} MB baseline.

{conn_table(conn_rows)}
"""


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small levels and short phases (~1 minute)")
    ap.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md")
    ap.add_argument("--tables", help="table counts of the actions part (default 1,4,12; --quick 4)")
    ap.add_argument("--profile", type=Path, help="py-spy the gateway, the table and this client in each REST window")
    ap.add_argument("--actions-only", action="store_true", help="skip the connections part (implies --no-docs)")
    ap.add_argument(
        "--wake", default="mine", help="the agents' long-poll wake (mine, any, or both side by side: mine,any)"
    )
    args = ap.parse_args()
    if args.quick:
        levels, conn_budget, n_tables, participants = [100, 300], 15.0, 10, 30
        table_counts, seconds, warmup = [4], 6.0, 1.5
    else:
        levels, conn_budget, n_tables, participants = [100, 500, 1000, 2000], 120.0, 20, 100
        table_counts, seconds, warmup = [1, 4, 12], 15.0, 2.0
    if args.tables:
        table_counts = [int(x) for x in args.tables.split(",")]
    if args.actions_only:
        args.no_docs = True  # the docs' section holds both parts
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="felt-bench-gw-") as tmpdir:
        tmp = Path(tmpdir)
        print(f"starting NATS, Valkey and the services in {tmp} …", flush=True)
        stack, servers = start_stack(tmp)
        bus = NatsBroker(stack.runner.nats_url)
        try:
            await bus.connect()
            async with httpx.AsyncClient(
                base_url=stack.url, timeout=60, limits=httpx.Limits(max_connections=500, max_keepalive_connections=500)
            ) as http:
                print(f"stack up in {time.perf_counter() - t_all:.1f} s; 1. WebSocket connections", flush=True)
                conn_rows = (
                    []
                    if args.actions_only
                    else await connections(stack, http, bus, levels, conn_budget, n_tables, participants)
                )
                print(f"  done at {time.perf_counter() - t_all:.0f} s", flush=True)
                await asyncio.sleep(1.0)
                print("2. actions: gateway REST vs the bus", flush=True)
                act_rows = []
                wakes = args.wake.split(",")
                for n in table_counts:
                    runs = []
                    for wake in wakes:
                        cpu0 = cpu_seconds(stack.gateway)
                        g = await gateway_phase(stack, http, bus, n, seconds, warmup, args.profile, wake)
                        runs.append((wake, g, (cpu_seconds(stack.gateway) - cpu0) / (g.end - g.start + warmup + 0.5)))
                        await asyncio.sleep(1.0)
                    b = await bus_phase(stack, http, bus, n, seconds, warmup)
                    br = b.result()
                    act_rows.append((n, runs[0][1].result(), runs[0][1].result(runs[0][1].arrival_lp), br))
                    for wake, g, gw_cpu in runs:
                        gw, lp = g.result(), g.result(g.arrival_lp)
                        print(
                            f"  {n:2d} tables, wake={wake}: gateway {gw['rate']:.0f} actions/s {gw['hands']:.1f} hands/s p50 {gw['p50']:.1f} ms p99 {gw['p99']:.1f} ms "
                            f"(long-poll p50 {lp['p50']:.1f} / p99 {lp['p99']:.1f}; gateway CPU {gw_cpu:.0%}; refused {gw['why'] or 0}) | "
                            f"bus {br['rate']:.0f} actions/s {br['hands']:.1f} hands/s p50 {br['p50']:.1f} ms p99 {br['p99']:.1f} ms (refused {br['why'] or 0}) | "
                            f"ratio {gw['rate'] / br['rate']:.2f}",
                            flush=True,
                        )
                    await asyncio.sleep(1.0)
        finally:
            await bus.stop()
            stack.runner.stop_all()
            for s in servers:
                s.stop()
    block = section("quick" if args.quick else "full", n_tables, conn_rows)
    print()
    print(block + f"\n{seconds:.0f} s per action row:\n\n" + act_table(act_rows))
    if not args.no_docs:
        docs_block.write("bench_gateway", block)
        print("written to docs/benchmarks.md (the bench_gateway block)")
    print(f"total {time.perf_counter() - t_all:.0f} s")


if __name__ == "__main__":
    asyncio.run(main())
