"""kill -9 the wallet mid-burst: retries with the same ids move each transfer exactly once,
and the event stream carries each transfer event exactly once."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import nats
import sqlalchemy as sa
from faststream.nats import NatsBroker

from felt_contracts import subjects as s
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    AccountOpened,
    Balance,
    BalanceQuery,
    BuyIn,
    BuyInResult,
    Commit,
    CommitResult,
    HandOutcome,
    OpenAccount,
    Payout,
    Settle,
    Wager,
)
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine
from felt_wallet.store import outbox, transfers
from tests.wallet.conftest import check_invariants

TABLES = 12
COMMITS = 30  # per table, sequential


async def call_until_done(broker, subject, req, model):
    """What a caller does: retry the same request (same ids) until the wallet answers."""
    while True:
        try:
            return await call(broker, subject, req, model, timeout=2)
        except BusError as exc:
            if exc.code is not ErrorCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.2)


async def test_kill9_mid_burst_moves_each_transfer_once(services, database_url, nats_url) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    svc = services.start("wallet", database_url=database_url)
    await js.purge_stream(s.WALLET_EVENTS_STREAM)  # this test counts the stream's events
    broker = NatsBroker(nats_url)
    await broker.connect()
    run = uuid.uuid4().hex[:6]
    players = [f"{run}-p{i}" for i in range(TABLES)]
    for i, p in enumerate(players):
        await call_until_done(broker, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p), AccountOpened)
        await call_until_done(
            broker,
            s.WALLET_BUY_IN,
            BuyIn(account_id=p, table_id=f"{run}-t{i}", amount=100, message_id=f"{run}-buy-{i}"),
            BuyInResult,
        )
    done = [0]

    async def table(i: int) -> None:
        for seq in range(COMMITS):
            req = Commit(account_id=players[i], table_id=f"{run}-t{i}", hand_id=f"{run}-h{i}", seq=seq, amount=1)
            await call_until_done(broker, s.WALLET_COMMIT, req, CommitResult)
            done[0] += 1

    burst = asyncio.gather(*(table(i) for i in range(TABLES)))
    while done[0] < TABLES * COMMITS // 4:
        await asyncio.sleep(0.01)
    svc.kill9()
    killed_at = done[0]
    svc.start()
    await asyncio.get_running_loop().run_in_executor(None, svc.wait_ready)
    await burst
    assert 0 < killed_at < TABLES * COMMITS

    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(sa.select(transfers.c.transfer_id, transfers.c.kind))).all()
        commits = [t for t, k in rows if k == "commit"]
        assert len(commits) == len(set(commits)) == TABLES * COMMITS
        assert len(rows) == TABLES * (COMMITS + 2)  # plus a grant and a buy-in per player
        await check_invariants(engine)
        deadline = time.monotonic() + 20
        while True:  # the relay drains the outbox
            async with engine.connect() as conn:
                left = (await conn.execute(sa.select(sa.func.count()).select_from(outbox))).scalar_one()
            info = await js.stream_info(s.WALLET_EVENTS_STREAM)
            if left == 0 and info.state.messages >= len(rows) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
    finally:
        await engine.dispose()
    sub = await js.subscribe(s.WALLET_TRANSFER_EVENTS, ordered_consumer=True)
    seen: list[str] = []
    for _ in range(info.state.messages):
        msg = await sub.next_msg(timeout=5)
        seen.append(json.loads(msg.data)["transfer_id"])
        assert msg.headers and msg.headers["Nats-Msg-Id"] == seen[-1]
    assert sorted(seen) == sorted(t for t, _ in rows)  # each event exactly once
    await sub.unsubscribe()
    await broker.stop()
    await nc.close()


async def test_kill9_before_and_after_a_hands_settlement_moves_it_once(services, database_url, nats_url) -> None:
    """A buy-in table's hand ends in one settlement (its wagers, payouts and returns): sent to
    a wallet killed before it arrived, it applies once the wallet is back; resent after a
    wallet killed right after applying it, it returns the first outcome and moves nothing."""
    svc = services.start("wallet", database_url=database_url)
    broker = NatsBroker(nats_url)
    await broker.connect()
    run = uuid.uuid4().hex[:6]
    table, players = f"{run}-t", [f"{run}-{p}" for p in "abc"]
    for p in players:
        await call_until_done(broker, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p), AccountOpened)
        req = BuyIn(account_id=p, table_id=table, amount=100, message_id=f"{run}-buy-{p}")
        await call_until_done(broker, s.WALLET_BUY_IN, req, BuyInResult)
    a, b, c = players
    settle = Settle(
        table_id=table,
        hand_id=f"{run}-h1",
        wagers=[Wager(account_id=a, amount=50), Wager(account_id=b, amount=20), Wager(account_id=c, amount=0)],
        payouts=[Payout(account_id=b, amount=40)],
        returns=[Payout(account_id=a, amount=30)],
    )
    svc.kill9()  # before: the table resends its stored settlement until a wallet answers
    pending = asyncio.ensure_future(call_until_done(broker, s.WALLET_SETTLE, settle, HandOutcome))
    await asyncio.sleep(0.5)
    assert not pending.done()
    svc.start()
    first = await pending
    svc.kill9()  # after: the answer was lost with the wallet
    svc.start()
    await asyncio.get_running_loop().run_in_executor(None, svc.wait_ready)
    assert await call_until_done(broker, s.WALLET_SETTLE, settle, HandOutcome) == first
    reserves = [
        (await call_until_done(broker, s.WALLET_BALANCE, BalanceQuery(account_id=p), Balance)).reserves[table]
        for p in players
    ]
    assert reserves == [80, 120, 100]
    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(transfers.c.transfer_id, transfers.c.kind).where(transfers.c.hand_id == settle.hand_id)
                )
            ).all()
        assert sorted(k for _, k in rows) == ["commit", "commit", "payout", "return"]
        await check_invariants(engine)
    finally:
        await engine.dispose()
    await broker.stop()
