"""Wallet throughput: committed transfers per second through the bus, group commit vs the
naive one-transaction-per-command path, on SQLite and PostgreSQL, with 1, 10 and 100 tables
(each table a client sending commits one after another). Same run, same machine, ratios.

    .venv/bin/python benchmarks/bench_wallet.py [--quick] [--postgres URL]

PostgreSQL: a scratch database is created on the given server and dropped afterwards
(default postgresql+asyncpg://postgres@127.0.0.1:5432/test; skipped if unreachable).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
import uuid
from pathlib import Path

from faststream.nats import NatsBroker
from sqlalchemy.engine import make_url

from felt_contracts import subjects as s
from felt_contracts.wallet import AccountOpened, BuyIn, BuyInResult, Commit, CommitResult, OpenAccount
from felt_runtime import infra
from felt_runtime.bus import call, make_broker
from felt_runtime.service import ServiceContext
from felt_runtime.settings import Settings
from felt_wallet.app import build
from felt_wallet.settings import WalletSettings


async def measure(nats_url: str, db_url: str, group: bool, tables: int, seconds: float) -> float:
    ctx = ServiceContext(name="wallet", settings=Settings(nats_url=nats_url, database_url=db_url),
                         broker=make_broker(nats_url, "wallet"))
    build(ctx, WalletSettings(grant=10**9, group_commit=group))
    for hook in ctx.startup:
        await hook()
    await ctx.broker.start()
    client = NatsBroker(nats_url)
    await client.connect()
    run = uuid.uuid4().hex[:8]
    try:
        for i in range(tables):
            await call(client, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=f"{run}-{i}"), AccountOpened)
            await call(client, s.WALLET_BUY_IN, BuyIn(account_id=f"{run}-{i}", table_id=f"{run}-t{i}", amount=10**8), BuyInResult)
        done = 0
        start = time.perf_counter()
        deadline = start + seconds

        async def table(i: int) -> None:
            nonlocal done
            seq = 0
            while time.perf_counter() < deadline:
                await call(client, s.WALLET_COMMIT, Commit(account_id=f"{run}-{i}", table_id=f"{run}-t{i}",
                                                           hand_id=f"{run}-h{i}", seq=seq, amount=1), CommitResult, timeout=60)
                seq += 1
                done += 1

        await asyncio.gather(*(table(i) for i in range(tables)))
        return done / (time.perf_counter() - start)
    finally:
        await client.stop()
        await ctx.broker.stop()
        for hook in reversed(ctx.shutdown):
            await hook()


async def postgres_scratch(base: str) -> tuple[str, str] | None:
    import asyncpg

    url = make_url(base)
    name = f"felt_bench_wallet_{uuid.uuid4().hex[:8]}"
    try:
        conn = await asyncpg.connect(host=url.host, port=url.port or 5432, user=url.username, password=url.password,
                                     database=url.database or "postgres", timeout=3)
    except (OSError, asyncpg.PostgresError) as exc:
        print(f"(PostgreSQL skipped: {exc})")
        return None
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    return url.set(database=name).render_as_string(hide_password=False), name


async def drop(base: str, name: str) -> None:
    import asyncpg

    url = make_url(base)
    conn = await asyncpg.connect(host=url.host, port=url.port or 5432, user=url.username, password=url.password,
                                 database=url.database or "postgres")
    await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--postgres", default="postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    seconds = 1.5 if args.quick else 4.0
    tmp = Path(tempfile.mkdtemp(prefix="felt-bench-wallet-"))
    nats = infra.start_nats(infra.free_port(), tmp / "nats", tmp / "nats.log")
    dbs: list[tuple[str, str]] = [("SQLite", f"sqlite+aiosqlite:///{tmp / 'wallet.sqlite'}")]
    scratch = await postgres_scratch(args.postgres)
    if scratch:
        dbs.append(("PostgreSQL", scratch[0]))
    rows = []
    try:
        for label, url in dbs:
            for tables in (1, 10, 100):
                group = await measure(nats.url, url, True, tables, seconds)
                naive = await measure(nats.url, url, False, tables, seconds)
                rows.append((label, tables, group, naive))
                print(f"  {label} {tables} tables: group {group:,.0f}/s, naive {naive:,.0f}/s", flush=True)
    finally:
        nats.stop()
        if scratch:
            await drop(args.postgres, scratch[1])
    print("\n| database | tables | group commit (transfers/s) | naive (transfers/s) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for label, tables, group, naive in rows:
        print(f"| {label} | {tables} | {group:,.0f} | {naive:,.0f} | {group / naive:.1f}× |")


if __name__ == "__main__":
    asyncio.run(main())
