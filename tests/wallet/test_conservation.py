"""Conservation under random concurrent load: several clients, thousands of commands."""

from __future__ import annotations

import asyncio
import random
import time

import sqlalchemy as sa

from felt_contracts import subjects as s
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    AccountOpened,
    BuyIn,
    BuyInResult,
    CancelHand,
    CancelTable,
    CashOut,
    CashOutResult,
    Commit,
    CommitResult,
    HandOutcome,
    OpenAccount,
    Payout,
    Settle,
    TableCancelled,
)
from felt_runtime.bus import BusError, call
from felt_wallet.store import hands
from tests.wallet.conftest import check_invariants

TARGET = 2500  # commands per database: a count, not a duration, so a slow machine does not weaken the test
SAFETY = 240.0  # seconds: give up (and fail) rather than hang
EXPECTED = {
    ErrorCode.CONFLICT,
    ErrorCode.HAND_CLOSED,
    ErrorCode.CHIPS_IN_PLAY,
    ErrorCode.INSUFFICIENT_FUNDS,
    ErrorCode.INVALID_AMOUNT,
    ErrorCode.NOT_FOUND,
}


async def test_random_concurrent_commands_conserve_every_chip(wallet) -> None:
    c = wallet.client
    rng = random.Random(4)
    players = [f"p{i}" for i in range(32)]
    tables = [f"t{i}" for i in range(16)]
    for p in players:
        await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p, owner_id=f"o{int(p[1:]) % 5}"), AccountOpened)
    stats = {"sent": 0, "ok": 0, "refused": 0}
    deadline = time.monotonic() + SAFETY

    async def send(subject, req, model):
        stats["sent"] += 1
        try:
            out = await call(c, subject, req, model, timeout=20)
            stats["ok"] += 1
            return out
        except BusError as exc:
            assert exc.code in EXPECTED, exc
            stats["refused"] += 1
            return None

    async def table_client(table: str, r: random.Random) -> None:
        hand_no = 0
        while stats["sent"] < TARGET and time.monotonic() < deadline:
            seated = r.sample(players, r.randint(2, 4))
            for p in seated:
                await send(
                    s.WALLET_BUY_IN,
                    BuyIn(account_id=p, table_id=table, amount=r.randint(10, 120), min_buy_in=10, max_buy_in=150),
                    BuyInResult,
                )
            hand_no += 1
            hand = f"{table}-h{hand_no}"
            put_in: dict[str, int] = {}
            for seq in range(r.randint(1, 8)):
                p = r.choice(seated)
                req = Commit(
                    account_id=p,
                    table_id=table,
                    hand_id=hand,
                    seq=seq,
                    amount=r.randint(1, 40),
                    from_available=r.random() < 0.15,
                )
                out = await send(s.WALLET_COMMIT, req, CommitResult)
                if out is not None:
                    put_in[p] = put_in.get(p, 0) + req.amount
                    if r.random() < 0.3:  # duplicate: same id, same content -> same result, nothing moves
                        assert (
                            await send(s.WALLET_COMMIT, req.model_copy(update={"message_id": "dup"}), CommitResult)
                            == out
                        )
                    if r.random() < 0.2:  # conflicting replay
                        assert (
                            await send(s.WALLET_COMMIT, req.model_copy(update={"amount": req.amount + 1}), CommitResult)
                            is None
                        )
            escrow = sum(put_in.values())
            roll = r.random()
            if roll < 0.2 or not put_in:
                await send(s.WALLET_CANCEL_HAND, CancelHand(table_id=table, hand_id=hand), HandOutcome)
            elif roll < 0.95:
                if r.random() < 0.2:  # wrong total: refused, nothing moves
                    await send(
                        s.WALLET_SETTLE,
                        Settle(
                            table_id=table,
                            hand_id=hand,
                            payouts=[Payout(account_id=next(iter(put_in)), amount=escrow + 1)],
                        ),
                        HandOutcome,
                    )
                winners = r.sample(sorted(put_in), r.randint(1, len(put_in)))
                cut = sorted(r.sample(range(1, escrow), len(winners) - 1)) if escrow > len(winners) else []
                shares = [b - a for a, b in zip([0, *cut], [*cut, escrow])] if cut or len(winners) == 1 else []
                payouts = [Payout(account_id=w, amount=a) for w, a in zip(winners, shares) if a > 0]
                settle = Settle(table_id=table, hand_id=hand, payouts=payouts)
                first = await send(s.WALLET_SETTLE, settle, HandOutcome)
                if first is not None and r.random() < 0.3:
                    assert await send(s.WALLET_SETTLE, settle, HandOutcome) == first
                    await send(s.WALLET_CANCEL_HAND, CancelHand(table_id=table, hand_id=hand), HandOutcome)
            # else: left open for the end-of-run sweep (or a cancel_table)
            for p in r.sample(seated, r.randint(0, len(seated))):
                await send(
                    s.WALLET_CASH_OUT,
                    CashOut(account_id=p, table_id=table, amount="all" if r.random() < 0.5 else r.randint(1, 60)),
                    CashOutResult,
                )

    async def restarter(r: random.Random) -> None:
        while stats["sent"] < TARGET and time.monotonic() < deadline:
            await asyncio.sleep(r.uniform(0.5, 1.5))
            await send(s.WALLET_CANCEL_TABLE, CancelTable(table_id=r.choice(tables)), TableCancelled)

    await asyncio.gather(
        *(table_client(t, random.Random(rng.random())) for t in tables), restarter(random.Random(rng.random()))
    )
    async with wallet.engine.connect() as conn:
        still_open = (
            await conn.execute(sa.select(hands.c.hand_id, hands.c.table_id).where(hands.c.status == "open"))
        ).all()
    for hand_id, table_id in still_open:  # close the open ones at the end
        await call(c, s.WALLET_CANCEL_HAND, CancelHand(table_id=table_id, hand_id=hand_id), HandOutcome)
    totals = await check_invariants(wallet.engine)
    assert totals == {"grants": 200 * len(players), "open_hands": 0}
    assert stats["sent"] >= TARGET and stats["ok"] > TARGET // 3 and stats["refused"] > 100, stats
