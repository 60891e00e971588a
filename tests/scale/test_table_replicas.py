"""Tables over two table-service replicas on real NATS (leases in JetStream KV): tables spread
over both; kill -9 one mid-hand and within the lease TTL the other owns its tables, the
interrupted hands are refunded exactly once, players sit and play again; a probe on the
tables' public events shows no table ever had two owners acting (one duplicate-free, ordered
sequence per table: two owners would both number events on from the same stored seq)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nats
import pytest
import signal

from felt_runtime.bus import make_broker
from felt_contracts import subjects
from felt_contracts.table import Act, GetEvents, GetView, Join, Ready, Start, TableRequest, TableResult
from felt_contracts.wallet import CancelTable, TableCancelled
from felt_runtime.bus import BusError, call
from felt_table.server.ownership import BUCKET
from tests.support import pausing
from tests.support.servers import nats_server
from tests.support.services import ServiceRunner
from tests.table.conftest import TABLE_ENV, balance, cmd, create_table, player

TTL = 3.0
REPLICA = {**TABLE_ENV, "felt_table_lease_seconds": str(TTL)}


async def owners(js: Any) -> dict[str, str]:
    kv = await js.key_value(BUCKET)
    try:
        keys = await kv.keys()
    except nats.js.errors.NoKeysError:
        return {}
    out = {}
    for k in keys:
        try:
            out[k] = (await kv.get(k)).value.decode()
        except nats.js.errors.KeyNotFoundError:
            pass
    return out


class Probe:
    """Every public table event, in the order NATS delivered them."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, str]] = []

    async def on_msg(self, msg: Any) -> None:
        ev = json.loads(msg.data)
        self.events.append((ev["table_id"], ev["seq"], ev["kind"]))

    def check_one_owner_at_a_time(self) -> None:
        by_table: dict[str, list[int]] = {}
        for tid, seq, _ in self.events:
            by_table.setdefault(tid, []).append(seq)
        for tid, seqs in by_table.items():
            # two owners acting would both number events from the same stored seq: duplicates
            assert len(seqs) == len(set(seqs)), f"{tid}: duplicate seqs {seqs}"
            assert seqs == sorted(seqs), f"{tid}: out of order {seqs}"


async def seat_and_start(bus: Any, t: str) -> list[str]:
    pids = []
    for _ in range(2):
        pid, owner = await player(bus)
        await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=100))
        await cmd(bus, t, Ready(participant_id=pid))
        pids.append(pid)
    await cmd(bus, t, Start(participant_id=pids[0]))
    return pids


async def retry(fn, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await fn()
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def start_replicas(runner: ServiceRunner, db: str) -> dict[str, Any]:
    """Wallet, limits, timer and two table replicas (`ra`, `rb`) on a migrated database."""
    # as the migration Job does before the Deployments: two replicas starting together on
    # an empty database would both create its tables
    env = {**os.environ, "FELT_DATABASE_URL": db}
    subprocess.run(
        [sys.executable, "-m", "felt_runtime.cli", "migrate"], env=env, check=True, capture_output=True, timeout=120
    )
    for name in ("wallet", "limits", "timer"):
        runner.start(name, database_url=db, ready=False, **TABLE_ENV)
    for proc in runner.running:
        proc.wait_ready()
    replicas = {
        rid: runner.start("table", database_url=db, ready=False, felt_table_replica_id=rid, **REPLICA)
        for rid in ("ra", "rb")
    }
    for proc in replicas.values():
        proc.wait_ready()
    return replicas


async def test_two_replicas_spread_tables_and_take_over_a_killed_one(redis_url: str, tmp_path: Path) -> None:
    with nats_server(tmp_path / "nats") as url:
        runner = ServiceRunner(url, redis_url, tmp_path)
        db = f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}"
        nc = await nats.connect(url)
        try:
            replicas = start_replicas(runner, db)
            bus = make_broker(url, "replica-test")
            await bus.connect()
            probe = Probe()
            await nc.subscribe("felt.evt.table.*.public", cb=probe.on_msg)
            js = nc.jetstream()

            tables = [await create_table(bus) for _ in range(4)]
            held = await owners(js)
            assert sorted(held[t] for t in tables) == ["ra", "ra", "rb", "rb"], held  # least loaded
            players = {t: await seat_and_start(bus, t) for t in tables}
            for t in tables:  # every table mid-hand: a raise, held in the hand's state (the reserves are the hold)
                v = (await cmd(bus, t, GetView())).view
                actor = next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)
                assert (await cmd(bus, t, Act(participant_id=actor, action="raiseTo", amount=10))).status == "ok"
                assert sum([(await balance(bus, p)).in_play for p in players[t]]) == 0  # nothing moves mid-hand

            victim, survivor = "ra", "rb"
            theirs = [t for t in tables if held[t] == victim]
            killed = time.monotonic()
            replicas[victim].kill9()
            while True:
                now_held = await owners(js)
                if all(now_held.get(t) == survivor for t in theirs):
                    break
                assert time.monotonic() - killed < 3 * TTL, now_held
                await asyncio.sleep(0.1)
            took = time.monotonic() - killed
            print(f"takeover of {len(theirs)} tables {took:.2f}s after kill -9 (lease TTL {TTL}s)")
            assert took <= TTL + TTL / 3 + 1.0

            again_by: dict[str, list[str]] = {}
            for t in theirs:  # refunded once, seats cleared, then played again
                v = (await retry(lambda t=t: cmd(bus, t, GetView()))).view
                assert v.seats == () and v.hand is None
                for p in players[t]:
                    b = await balance(bus, p)
                    assert (b.available, b.reserved, b.in_play) == (200, 0, 0), b
                resets = [
                    e.amount for e in (await cmd(bus, t, GetEvents(after_seq=0))).events if e.kind == "table_reset"
                ]
                assert resets == [0, 0], resets  # created; taken over (no hand open at the wallet: nothing moved)
                again = again_by[t] = await seat_and_start(bus, t)
                assert (await cmd(bus, t, GetView())).view.hand is not None
                assert (
                    sum([(await balance(bus, p)).in_play for p in again]) == 0
                )  # a new hand's blinds stay in the reserves
            for t in set(tables) - set(theirs):  # the survivor's own hands went on untouched
                assert sum([(await balance(bus, p)).in_play for p in players[t]]) == 0
            await asyncio.sleep(TTL)  # another sweep or two: nothing moves, nothing is refunded twice
            for t in theirs:
                for p in players[t]:
                    assert (await balance(bus, p)).available == 200
            probe.check_one_owner_at_a_time()

            # a paused owner (SIGSTOP) loses its tables; woken, it cannot move a chip
            replicas[victim] = runner.start("table", database_url=db, felt_table_replica_id=victim, **REPLICA)
            all_players = {t: (again_by[t] if t in again_by else players[t]) for t in tables}
            paused = replicas[survivor]
            lease_before = {t: (await (await js.key_value(BUCKET)).get(t)).revision for t in tables}
            turns = {}
            for t in tables:
                v = (await cmd(bus, t, GetView())).view
                turns[t] = next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)
            pausing.stop(paused.process.pid)
            stopped = time.monotonic()
            try:
                while True:
                    now_held = await owners(js)
                    if all(now_held.get(t) == victim for t in tables):
                        break
                    assert time.monotonic() - stopped < 4 * TTL, now_held
                    await asyncio.sleep(0.1)
                for t in tables:  # the new owner's restart policy refunded every interrupted hand
                    for p in all_players[t]:
                        b = await retry(lambda p=p: balance(bus, p))
                        assert (b.reserved, b.in_play) == (0, 0), b
                before = {p: await balance(bus, p) for ps in all_players.values() for p in ps}
                # while it sleeps, commands reach it (queued in its socket): at each table the
                # player to act folds, which would end the hand and pay the pot out
                waiting = [
                    asyncio.create_task(
                        call(
                            bus,
                            subjects.table_replica(survivor, "cmd"),
                            TableRequest(table_id=t, command=Act(participant_id=turns[t], action="fold")),
                            TableResult,
                            timeout=2 * TTL,
                        )
                    )
                    for t in tables
                ]
                await asyncio.sleep(0.3)
            finally:
                paused.process.send_signal(signal.SIGCONT)
            woken = await asyncio.gather(*waiting, return_exceptions=True)
            assert all(isinstance(w, BusError) and w.code == "unavailable" for w in woken), (
                woken
            )  # refused, none applied
            await asyncio.sleep(TTL)
            after = {p: await balance(bus, p) for ps in all_players.values() for p in ps}
            assert after == before, "the woken replica moved chips"
            # the wallet's own fence: a command with the old owner's lease is refused
            t = tables[0]
            with pytest.raises(BusError) as refused:
                await call(
                    bus,
                    subjects.WALLET_CANCEL_TABLE,
                    CancelTable(table_id=t, lease=min(lease_before.values())),
                    TableCancelled,
                )
            assert refused.value.details.get("reason") == "stale_lease", refused.value
            probe.check_one_owner_at_a_time()
            await bus.stop()
        finally:
            await nc.close()
            runner.stop_all()
