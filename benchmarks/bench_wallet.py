"""Wallet throughput: committed transfers per second through the bus, group commit vs the
naive one-transaction-per-command path, on SQLite and PostgreSQL, with 1, 10 and 100 tables
(each table a client sending commits one after another, waiting for each reply).

    .venv/bin/python benchmarks/bench_wallet.py [--quick] [--seconds S] [--rounds R] [--postgres URL]

Method: the wallet runs in this process exactly as `build` wires it for `python -m
felt_wallet`, logging at the service's default level (INFO, JSON lines to a file); the
tables are plain nats-py requests (cheap, so the client's CPU does not masquerade as the
wallet's). For each database and table count, R rounds alternate group/naive (group first in
odd rounds, naive first in even ones) so machine noise hits both alike; each run starts a
fresh wallet, opens the accounts, warms up for 1 s, then counts successful commit replies for
S seconds. Reported: the median transfers/s of each path over the rounds, the ratio of the
medians, and the lowest and highest per-round ratio.

PostgreSQL: a scratch database is created on the given server and dropped afterwards
(default postgresql+asyncpg://postgres@127.0.0.1:5432/test; skipped if unreachable).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import nats
from sqlalchemy.engine import make_url

from felt_contracts import subjects as s
from felt_contracts.wallet import BuyIn, Commit, OpenAccount
from felt_runtime import infra
from felt_runtime.bus import make_broker
from felt_runtime.service import ServiceContext
from felt_runtime.settings import Settings
from felt_wallet.app import build
from felt_wallet.settings import WalletSettings

WARMUP = 1.0


async def request(nc: nats.NATS, subject: str, body: str) -> dict:
    msg = await nc.request(subject, body.encode(), timeout=60)
    return json.loads(msg.data)


async def measure(nats_url: str, db_url: str, group: bool, tables: int, seconds: float) -> tuple[float, int]:
    """(committed transfers per second, refused or failed commits)."""
    ctx = ServiceContext(
        name="wallet", settings=Settings(nats_url=nats_url, database_url=db_url), broker=make_broker(nats_url, "wallet")
    )
    build(ctx, WalletSettings(grant=10**9, group_commit=group))
    for hook in ctx.startup:
        await hook()
    await ctx.broker.start()
    nc = await nats.connect(nats_url)
    run = uuid.uuid4().hex[:8]
    try:
        for i in range(tables):
            for subject, req in (
                (s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=f"{run}-{i}")),
                (
                    s.WALLET_BUY_IN,
                    BuyIn(account_id=f"{run}-{i}", table_id=f"{run}-t{i}", amount=10**8, max_buy_in=10**9),
                ),
            ):
                assert (await request(nc, subject, req.model_dump_json()))["ok"]
        counting = False
        done = failed = 0
        stop = False

        async def table(i: int) -> None:
            nonlocal done, failed
            seq = 0
            while not stop:
                req = Commit(account_id=f"{run}-{i}", table_id=f"{run}-t{i}", hand_id=f"{run}-h{i}", seq=seq, amount=1)
                ok = (await request(nc, s.WALLET_COMMIT, req.model_dump_json()))["ok"]
                seq += 1
                if counting:
                    if ok:
                        done += 1
                    else:
                        failed += 1

        clients = [asyncio.create_task(table(i)) for i in range(tables)]
        await asyncio.sleep(WARMUP)
        counting, start = True, time.perf_counter()
        await asyncio.sleep(seconds)
        counting, elapsed = False, time.perf_counter() - start
        stop = True
        await asyncio.gather(*clients)
        return done / elapsed, failed
    finally:
        await nc.close()
        await ctx.broker.stop()
        for hook in reversed(ctx.shutdown):
            await hook()


async def postgres_scratch(base: str) -> tuple[str, str] | None:
    import asyncpg

    url = make_url(base)
    name = f"felt_bench_wallet_{uuid.uuid4().hex[:8]}"
    try:
        conn = await asyncpg.connect(
            host=url.host,
            port=url.port or 5432,
            user=url.username,
            password=url.password,
            database=url.database or "postgres",
            timeout=3,
        )
    except (OSError, asyncpg.PostgresError) as exc:
        print(f"(PostgreSQL skipped: {exc})")
        return None
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    return url.set(database=name).render_as_string(hide_password=False), name


async def drop(base: str, name: str) -> None:
    import asyncpg

    url = make_url(base)
    conn = await asyncpg.connect(
        host=url.host,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        database=url.database or "postgres",
    )
    await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await conn.close()


def log_like_the_service(path: Path) -> None:
    """The service's logging (JSON, INFO), into a file instead of stderr."""
    from felt_runtime.logs import JsonFormatter

    handler = logging.FileHandler(path)
    handler.setFormatter(JsonFormatter("wallet"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(Settings().log_level)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="2 s per run, 1 round")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", default="1,10,100")
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--postgres", default="postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    seconds, rounds = (2.0, 1) if args.quick else (args.seconds, args.rounds)
    tmp = Path(tempfile.mkdtemp(prefix="felt-bench-wallet-"))
    log_like_the_service(tmp / "wallet.log")
    nats_server = infra.start_nats(infra.free_port(), tmp / "nats", tmp / "nats.log")
    dbs: list[tuple[str, str]] = []
    if "sqlite" in args.db:
        dbs.append(("SQLite", f"sqlite+aiosqlite:///{tmp / 'wallet.sqlite'}"))
    scratch = await postgres_scratch(args.postgres) if "postgres" in args.db else None
    if scratch:
        dbs.append(("PostgreSQL", scratch[0]))
    rows = []
    try:
        for label, url in dbs:
            for tables in (int(t) for t in args.tables.split(",")):
                runs: dict[bool, list[float]] = {True: [], False: []}
                for r in range(rounds):
                    for group in (True, False) if r % 2 == 0 else (False, True):
                        rate, failed = await measure(nats_server.url, url, group, tables, seconds)
                        assert failed == 0, f"{failed} commits refused"
                        runs[group].append(rate)
                g, n = statistics.median(runs[True]), statistics.median(runs[False])
                ratios = [a / b for a, b in zip(runs[True], runs[False], strict=True)]
                rows.append((label, tables, g, n, min(ratios), max(ratios)))
                print(
                    f"  {label} {tables} tables: group {[round(x) for x in runs[True]]}/s, "
                    f"naive {[round(x) for x in runs[False]]}/s",
                    flush=True,
                )
    finally:
        nats_server.stop()
        if scratch:
            await drop(args.postgres, scratch[1])
    print(f"\n{rounds} round(s) x {seconds:g} s per path and cell, after {WARMUP:g} s warm-up; medians.\n")
    print("| database | tables | group commit (transfers/s) | naive (transfers/s) | ratio | per-round ratios |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, tables, g, n, lo, hi in rows:
        print(f"| {label} | {tables} | {g:,.0f} | {n:,.0f} | {g / n:.1f}× | {lo:.1f}–{hi:.1f}× |")


if __name__ == "__main__":
    asyncio.run(main())
