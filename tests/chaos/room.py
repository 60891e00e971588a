"""Chaos over the whole room: NATS (JetStream), Valkey and every service as processes, bots
playing at several tables through the gateway's REST API and a person watching one table over
the WebSocket. At random moments one process of a random victim — table, wallet, limits, timer,
chat, gateway, NATS or Valkey — is killed with SIGKILL and started again after a random delay
(NATS on the same port with the same store dir, so JetStream keeps its streams; Valkey from its
append-only file). The room's invariants are checked between kills and at the end.

`python -m tests.chaos.room --seconds 600 --seed 7` (`make chaos`) prints the report as JSON
and markdown (docs/reliability.md); `tests/chaos/test_chaos_room.py` runs a short one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
import websockets
from faststream.nats import NatsBroker
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from felt_runtime import infra
from felt_wallet.store import hands as wallet_hands, transfers
from tests.support.gateway import socket_url
from tests.support.servers import start_nats_with_users
from tests.support.services import ServiceProcess, ServiceRunner
from tests.table.money import stacks_vs_reserves, view
from tests.wallet.conftest import check_invariants

SERVICES = ("wallet", "limits", "timer", "chat", "table", "gateway")
VICTIMS = ("table", "wallet", "limits", "timer", "chat", "gateway", "nats", "valkey")
#: a recovery slower than this is a failure of the run
RECOVER_SECONDS = 90.0


@dataclass
class InfraProcess:
    """NATS or Valkey, restartable on the same port with the same data dir."""

    name: str
    workdir: Path
    port: int = field(default_factory=infra.free_port)
    server: infra.Server | None = None
    url: str = ""  # NATS: with the tests' user (tests/support/servers.py)

    def start(self) -> None:
        log = self.workdir / f"{self.name}.log"
        if self.name == "nats":
            self.server, self.url = start_nats_with_users(self.port, self.workdir)
        else:
            self.url = f"redis://127.0.0.1:{self.port}/0"
            self.server = infra.start_valkey(self.port, self.workdir / "valkey", log, persist=True)

    def kill9(self) -> None:
        assert self.server is not None
        self.server.process.kill()
        self.server.process.wait()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()

    def wait_ready(self, timeout: float = 30.0) -> None:
        pass  # start() returns once it listens


@dataclass
class Kill:
    victim: str
    down_seconds: float
    ready_seconds: float = 0.0  # from the restart until every service is ready again
    play_seconds: float = 0.0  # from the restart until every playing table dealt a new hand


@dataclass
class Report:
    seed: int
    seconds: float
    kills: list[Kill] = field(default_factory=list)
    hands_settled: int = 0
    hands_cancelled: int = 0
    chips_lost: int = 0
    grants: int = 0
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    ws: dict[str, int] = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)

    def per_victim(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        by: dict[str, list[Kill]] = defaultdict(list)
        for k in self.kills:
            by[k.victim].append(k)
        for victim in VICTIMS:
            ks = by.get(victim, [])
            out[victim] = {
                "kills": len(ks),
                "ready_max_s": round(max((k.ready_seconds for k in ks), default=0), 1),
                "play_median_s": round(statistics.median([k.play_seconds for k in ks]), 1) if ks else 0,
                "play_max_s": round(max((k.play_seconds for k in ks), default=0), 1),
            }
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "seconds": round(self.seconds),
            "kills": len(self.kills),
            "per_victim": self.per_victim(),
            "hands_settled": self.hands_settled,
            "hands_cancelled": self.hands_cancelled,
            "chips_lost": self.chips_lost,
            "grants": self.grants,
            "invariant_checks": self.checks,
            "websocket": self.ws,
            "hands_per_table": self.tables,
            "failures": self.failures,
        }

    def markdown(self) -> str:
        lines = [
            "| victim | kills survived | ready again (max s) | play resumed (median / max s) |",
            "|---|---|---|---|",
        ]
        for victim, v in self.per_victim().items():
            lines.append(f"| {victim} | {v['kills']} | {v['ready_max_s']} | {v['play_median_s']} / {v['play_max_s']} |")
        lines += [
            "",
            f"{self.hands_settled} hands settled, {self.hands_cancelled} cancelled (refunded), chips lost: "
            f"{self.chips_lost}, invariant checks passed: {self.checks}, WebSocket: {self.ws}, failures: {len(self.failures)}",
        ]
        return "\n".join(lines)


class Room:
    def __init__(
        self, workdir: Path, database_url: str, bots: int = 6, env: dict[str, dict[str, str]] | None = None
    ) -> None:
        """`env`: more environment per service (a soak's memory tracing)."""
        self.workdir = workdir
        self.database_url = database_url
        self.bots = bots
        self.env = env or {}
        self.nats = InfraProcess("nats", workdir)
        self.valkey = InfraProcess("valkey", workdir)
        self.runner: ServiceRunner | None = None
        self.procs: dict[str, ServiceProcess] = {}

    def start(self) -> None:
        self.nats.start()
        self.valkey.start()
        self.runner = ServiceRunner(self.nats.url, self.valkey.url, self.workdir)
        # deep stacks (a bot that went broke would leave a table without play, which is not what
        # the run measures: every table must play again after each kill)
        env = {
            "table": {"felt_table_turn_seconds": "4", "felt_table_grace_seconds": "4"},
            "wallet": {"felt_wallet_grant": "5000"},
        }
        for name in SERVICES[:-1]:
            self.procs[name] = self.runner.start(
                name, database_url=self.database_url, ready=False, **(env.get(name, {}) | self.env.get(name, {}))
            )
        for proc in self.procs.values():
            proc.wait_ready(90)
        self.procs["gateway"] = self.runner.start(
            "gateway", database_url=self.database_url, ready=False, **self.env.get("gateway", {})
        )
        self.procs["gateway"].wait_ready(90)
        # the bots play through the gateway; they are the room's REST clients (not a victim)
        self.procs["bots"] = self.runner.start(
            "bots",
            database_url=self.database_url,
            ready=False,
            felt_bots=str(self.bots),
            felt_bots_levels="easy",
            felt_bots_think_seconds="0.05",
            felt_bots_pause_seconds="0.2",
            felt_bots_gateway_url=self.gateway_url,
        )
        self.procs["bots"].wait_ready(90)

    @property
    def gateway_url(self) -> str:
        return self.procs["gateway"].url

    def victim(self, name: str) -> Any:
        return {"nats": self.nats, "valkey": self.valkey}.get(name) or self.procs[name]

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.stop_all()
        self.valkey.stop()
        self.nats.stop()

    async def healthy(self) -> bool:
        async with httpx.AsyncClient(timeout=2) as c:
            for name in SERVICES:
                try:
                    if (await c.get(f"{self.procs[name].url}/readyz")).status_code != 200:
                        return False
                except httpx.HTTPError:
                    return False
        return True

    async def hands_played(self, patience: float = 30) -> dict[str, int]:
        """handsPlayed of every table with two or more players (from the public lobby). Right
        after a restart the lobby may answer 503 for a moment (the gateway's call to the table
        service timed out): it is asked again for up to `patience` seconds, then the refusal raises."""
        deadline = time.monotonic() + patience
        async with httpx.AsyncClient(timeout=5) as c:
            while (r := await c.get(f"{self.gateway_url}/api/v2/poker/tables")).status_code != 200:
                if time.monotonic() > deadline:
                    r.raise_for_status()
                await asyncio.sleep(0.5)
        return {t["tableId"]: t["handsPlayed"] for t in r.json()["tables"] if t["players"] >= 2}


class Watcher:
    """A person watching one table over the WebSocket, reconnecting with `lastSeq` after every
    drop: events must follow each other without a gap (a snapshot resets the count)."""

    def __init__(self, room: Room, table_id: str, token: str) -> None:
        self.room, self.table_id, self.token = room, table_id, token
        self.last_seq = 0
        self.counts: Counter[str] = Counter()
        self.stopping = False

    async def run(self) -> None:
        while not self.stopping:
            try:
                url = socket_url(self.room.gateway_url) + "?token=" + self.token
                async with websockets.connect(url, open_timeout=5, max_size=2**22) as ws:
                    sub: dict[str, Any] = {"type": "subscribe", "tableId": self.table_id}
                    if self.last_seq:
                        sub["lastSeq"] = self.last_seq
                    await ws.send(json.dumps(sub))
                    self.counts["connections"] += 1
                    while not self.stopping:
                        try:
                            frame = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                        except TimeoutError:
                            continue
                        self.on_frame(frame)
            except (OSError, websockets.WebSocketException, TimeoutError):
                pass
            if not self.stopping:
                self.counts["reconnects"] += 1
                await asyncio.sleep(0.5)

    def on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "snapshot":
            self.counts["snapshots"] += 1
            self.last_seq = frame["seq"]
        elif kind == "subscribed":
            if self.last_seq and frame["seq"] >= self.last_seq:
                self.counts["resumed"] += 1
        elif kind == "event":
            seq = frame["seq"]
            if seq <= self.last_seq:
                self.counts["repeats"] += 1
            elif self.last_seq and seq != self.last_seq + 1:
                self.counts["gaps"] += 1
            self.last_seq = max(self.last_seq, seq)
            self.counts["events"] += 1


async def sign_up(url: str) -> str:
    email, password = f"chaos{uuid.uuid4().hex[:10]}@example.org", "chaos watcher password"
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        (await c.post("/api/v2/accounts/signup", json={"email": email, "password": password})).raise_for_status()
        return (await c.post("/api/v2/accounts/login", json={"email": email, "password": password})).json()["token"]


async def money_checks(engine: AsyncEngine, report: Report) -> None:
    """Between kills: the ledger sums to its grants, nothing is negative, no ended hand keeps
    escrow, and a cancelled hand was refunded exactly what it took (once)."""
    try:
        totals = await check_invariants(engine)
        async with engine.connect() as conn:
            status = dict((await conn.execute(sa.select(wallet_hands.c.hand_id, wallet_hands.c.status))).all())
            moved = (
                await conn.execute(
                    sa.select(transfers.c.hand_id, transfers.c.kind, sa.func.sum(transfers.c.amount))
                    .where(transfers.c.hand_id.is_not(None))
                    .group_by(transfers.c.hand_id, transfers.c.kind)
                )
            ).all()
        by_hand: dict[str, dict[str, int]] = defaultdict(dict)
        for hand_id, kind, amount in moved:
            by_hand[hand_id][kind] = int(amount)
        for hand_id, st in status.items():
            m = by_hand.get(hand_id, {})
            out = m.get("refund", 0) + m.get("return", 0) + m.get("payout", 0)
            if st == "cancelled":
                assert m.get("payout", 0) == 0 and out == m.get("commit", 0), (hand_id, m)
            elif st == "settled":
                assert m.get("refund", 0) == 0 and out == m.get("commit", 0), (hand_id, m)
        report.grants = totals["grants"]
        report.checks += 1
    except AssertionError as exc:
        report.failures.append(f"money: {exc}")


async def tables_match_wallet(room: Room, report: Report) -> None:
    """At the end: every table's stacks equal the wallet's reserves (read while no hand runs)."""
    broker = NatsBroker(room.nats.url)
    await broker.connect()
    try:
        for table_id in (await room.hands_played()) | {t: 0 for t in report.tables}:
            for _ in range(100):
                before = await view(broker, table_id)
                if before.hand is None or before.hand.phase == "over":
                    stacks, reserves = await stacks_vs_reserves(broker, table_id)
                    if (await view(broker, table_id)).seq == before.seq:
                        if stacks != reserves:
                            report.failures.append(f"table {table_id}: stacks {stacks} != reserves {reserves}")
                        break
                await asyncio.sleep(0.2)
            else:
                report.failures.append(f"table {table_id}: never quiet")
    finally:
        await broker.stop()


async def stray_hands(room: Room, engine: AsyncEngine) -> list[str]:
    """Hands open at the wallet that their table is not playing (escrow nobody will settle);
    asked a few times, so that a hand ending right now is not counted."""
    broker = NatsBroker(room.nats.url)
    await broker.connect()
    try:
        for _ in range(20):
            async with engine.connect() as conn:
                open_ = (
                    await conn.execute(
                        sa.select(wallet_hands.c.hand_id, wallet_hands.c.table_id).where(
                            wallet_hands.c.status == "open"
                        )
                    )
                ).all()
            stray = []
            for hand_id, table_id in open_:
                v = await view(broker, table_id)
                if v.hand is None or v.hand.hand_id != hand_id or v.hand.phase == "over":
                    stray.append(hand_id)
            if not stray:
                return []
            await asyncio.sleep(0.5)
        return stray
    finally:
        await broker.stop()


async def until(predicate: Any, timeout: float) -> float | None:
    """Seconds until `predicate()` is true (None: not within `timeout`)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            if await predicate():
                return time.monotonic() - start
        except (httpx.HTTPError, OSError, KeyError, ValueError):
            pass
        await asyncio.sleep(0.2)
    return None


async def recover(room: Room, before: dict[str, int], report: Report, kill: Kill) -> None:
    ready = await until(room.healthy, RECOVER_SECONDS)
    if ready is None:
        report.failures.append(f"{kill.victim}: services not ready within {RECOVER_SECONDS}s")
        return
    kill.ready_seconds = ready

    async def dealt_again() -> bool:
        """Every table still playing has dealt a new hand (a bot that went broke and left may
        leave a table with one player: it no longer counts)."""
        now = await room.hands_played()
        going = [t for t in before if t in now]
        return bool(going) and all(now[t] > before[t] for t in going)

    played = await until(dealt_again, RECOVER_SECONDS)
    if played is None:
        report.failures.append(
            f"{kill.victim}: play did not resume at every table within {RECOVER_SECONDS}s "
            f"(before {before}, now {await room.hands_played()})"
        )
        return
    kill.play_seconds = ready + played


async def chaos(
    room: Room,
    seconds: float,
    seed: int,
    kills: int | None = None,
    gap: tuple[float, float] = (2.0, 8.0),
    down: tuple[float, float] = (0.2, 3.0),
) -> Report:
    """Kill and restart at random until `seconds` have passed (or `kills` were made), then check."""
    rng = random.Random(seed)
    report = Report(seed, seconds)
    engine = create_async_engine(room.database_url)
    token = await sign_up(room.gateway_url)
    playing = await until(lambda: _at_least(room, 2), 120)
    if playing is None:
        raise RuntimeError("the bots never got two tables going")
    start_hands = await room.hands_played()
    watcher = Watcher(room, sorted(start_hands)[0], token)
    watching = asyncio.create_task(watcher.run())
    started = time.monotonic()
    order: list[str] = []
    try:
        while time.monotonic() - started < seconds and (kills is None or len(report.kills) < kills):
            await asyncio.sleep(rng.uniform(*gap))
            await money_checks(engine, report)
            if not order:  # every victim once per round, in a random order
                order = list(VICTIMS)
                rng.shuffle(order)
            victim = order.pop()
            before = await room.hands_played()
            kill = Kill(victim, round(rng.uniform(*down), 2))
            room.victim(victim).kill9()
            await asyncio.sleep(kill.down_seconds)
            room.victim(victim).start()
            report.kills.append(kill)
            await recover(room, before, report, kill)
            if report.failures:
                break
        await asyncio.sleep(2)
        await money_checks(engine, report)
        watcher.stopping = True
        await asyncio.wait_for(watching, 10)
        room.procs["bots"].stop()  # play stops; every hand ends (absent players time out)
        await tables_match_wallet(room, report)
        await money_checks(engine, report)
        async with engine.connect() as conn:
            counts = dict(
                (
                    await conn.execute(
                        sa.select(wallet_hands.c.status, sa.func.count()).group_by(wallet_hands.c.status)
                    )
                ).all()
            )
            held = (
                await conn.execute(sa.text("select coalesce(sum(balance), 0) from wallet_ledger where kind != 'house'"))
            ).scalar_one()
        report.hands_settled = int(counts.get("settled", 0))
        report.hands_cancelled = int(counts.get("cancelled", 0))
        report.chips_lost = report.grants - int(held)
        report.ws = dict(watcher.counts)
        report.tables = (
            {t: n - start_hands.get(t, 0) for t, n in (await room.hands_played()).items()}
            if await room.healthy()
            else {}
        )
        if watcher.counts["gaps"] or watcher.counts["repeats"]:
            report.failures.append(f"websocket: {dict(watcher.counts)}")
        if stray := await stray_hands(room, engine):
            report.failures.append(f"hands open at the wallet that no table plays: {stray}")
    finally:
        watcher.stopping = True
        watching.cancel()
        await engine.dispose()
    report.seconds = time.monotonic() - started
    return report


async def _at_least(room: Room, n: int) -> bool:
    return len(await room.hands_played()) >= n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="felt-chaos-"))
    workdir.mkdir(parents=True, exist_ok=True)
    database_url = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    room = Room(workdir, database_url, bots=args.bots)
    print(f"chaos: seed {args.seed}, {args.seconds:.0f} s, logs in {workdir}", file=sys.stderr)
    try:
        room.start()
        report = asyncio.run(chaos(room, args.seconds, args.seed))
    finally:
        room.stop()
    print(json.dumps(report.as_json(), indent=1))
    print(report.markdown())
    return 1 if report.failures or report.chips_lost else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
