"""Tournament prize pools in the wallet (in-process wallet, real NATS, SQLite and PostgreSQL):
buy-ins in, a refund or the prizes out, each exactly once; refusals change nothing."""

from __future__ import annotations

import uuid

import pytest

from felt_contracts import subjects as s
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    AccountOpened,
    Balance,
    BalanceQuery,
    OpenAccount,
    Payout,
    PoolClose,
    PoolEntry,
    PoolEntryResult,
    PoolOutcome,
    PoolQuery,
    PoolRefund,
    PoolRefundResult,
    PoolState,
)
from felt_runtime.bus import call
from tests.support.waiting import refused
from tests.wallet.conftest import check_invariants, snapshot


async def players(c, n: int) -> list[str]:
    names = [f"p{i}-{uuid.uuid4().hex[:6]}" for i in range(n)]
    for p in names:
        await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p, owner_id=f"o-{p}"), AccountOpened)
    return names


async def available(c, who: str) -> int:
    return (await call(c, s.WALLET_BALANCE, BalanceQuery(account_id=who), Balance)).available


async def enter(c, pool: str, who: str, amount: int = 50) -> PoolEntryResult:
    req = PoolEntry(pool_id=pool, entry_id=f"{pool}:{who}", account_id=who, amount=amount)
    return await call(c, s.WALLET_POOL_ENTRY, req, PoolEntryResult)


async def pool_state(c, pool: str) -> PoolState:
    return await call(c, s.WALLET_POOL, PoolQuery(pool_id=pool), PoolState)


async def test_entries_refund_and_prizes_move_once_and_the_pool_ends_at_zero(wallet) -> None:
    c = wallet.client
    a, b, d = await players(c, 3)
    for p in (a, b, d):
        first = await enter(c, "cup", p)
        assert await enter(c, "cup", p) == first  # the same entry again moves nothing
    assert (await pool_state(c, "cup")).balance == 150 and await available(c, a) == 150
    back = await call(c, s.WALLET_POOL_REFUND, PoolRefund(pool_id="cup", entry_id=f"cup:{d}"), PoolRefundResult)
    assert back.amount == 50 and back.pool == 100 and await available(c, d) == 200
    again = await call(c, s.WALLET_POOL_REFUND, PoolRefund(pool_id="cup", entry_id=f"cup:{d}"), PoolRefundResult)
    assert again == back and await available(c, d) == 200  # asked again (another message id): nothing moves
    close = PoolClose(
        pool_id="cup", outcome="paid", payouts=[Payout(account_id=a, amount=70), Payout(account_id=b, amount=30)]
    )
    paid = await call(c, s.WALLET_POOL_CLOSE, close, PoolOutcome)
    assert [t.amount for t in paid.transfers] == [70, 30]
    assert await call(c, s.WALLET_POOL_CLOSE, close, PoolOutcome) == paid  # a retry pays nothing more
    assert (await available(c, a), await available(c, b), await available(c, d)) == (220, 180, 200)
    state = await pool_state(c, "cup")
    assert state.balance == 0 and state.status == "paid" and [e.refunded for e in state.entries].count(True) == 1
    await check_invariants(wallet.engine)


async def test_a_refunded_pool_gives_every_entry_back_once(wallet) -> None:
    c = wallet.client
    names = await players(c, 4)
    for p in names:
        await enter(c, "gone", p, 40)
    await call(c, s.WALLET_POOL_REFUND, PoolRefund(pool_id="gone", entry_id=f"gone:{names[0]}"), PoolRefundResult)
    close = PoolClose(pool_id="gone", outcome="refunded")
    out = await call(c, s.WALLET_POOL_CLOSE, close, PoolOutcome)
    assert sorted(t.account_id for t in out.transfers) == sorted(names[1:])  # the refunded one is not paid twice
    assert await call(c, s.WALLET_POOL_CLOSE, close, PoolOutcome) == out
    assert [await available(c, p) for p in names] == [200] * 4
    assert (await pool_state(c, "gone")).balance == 0
    await check_invariants(wallet.engine)


@pytest.mark.parametrize(
    "case",
    ["insufficient", "unknown_account", "short_payouts", "entry_after_close", "other_close", "refund_unknown"],
)
async def test_refused_pool_commands_change_nothing(wallet, case: str) -> None:
    c = wallet.client
    a, b = await players(c, 2)
    pool = f"bad-{case}"
    await enter(c, pool, a)
    if case in ("entry_after_close", "other_close"):
        await call(c, s.WALLET_POOL_CLOSE, PoolClose(pool_id=pool, outcome="refunded"), PoolOutcome)
    before = await snapshot(wallet.engine)
    requests = {
        "insufficient": (
            s.WALLET_POOL_ENTRY,
            PoolEntry(pool_id=pool, entry_id="x", account_id=b, amount=201),
            ErrorCode.INSUFFICIENT_FUNDS,
        ),
        "unknown_account": (
            s.WALLET_POOL_ENTRY,
            PoolEntry(pool_id=pool, entry_id="y", account_id="nobody", amount=1),
            ErrorCode.NOT_FOUND,
        ),
        "short_payouts": (
            s.WALLET_POOL_CLOSE,
            PoolClose(pool_id=pool, outcome="paid", payouts=[Payout(account_id=a, amount=49)]),
            ErrorCode.INVALID_AMOUNT,
        ),
        "entry_after_close": (
            s.WALLET_POOL_ENTRY,
            PoolEntry(pool_id=pool, entry_id="z", account_id=b, amount=5),
            ErrorCode.CONFLICT,
        ),
        "other_close": (
            s.WALLET_POOL_CLOSE,
            PoolClose(pool_id=pool, outcome="paid", payouts=[Payout(account_id=a, amount=50)]),
            ErrorCode.CONFLICT,
        ),
        "refund_unknown": (s.WALLET_POOL_REFUND, PoolRefund(pool_id=pool, entry_id="nope"), ErrorCode.NOT_FOUND),
    }
    subject, req, code = requests[case]
    await refused(call(c, subject, req, PoolOutcome), code)
    assert await snapshot(wallet.engine) == before
    await check_invariants(wallet.engine)
