"""Refills (docs/wallet.md "Refills") over the bus, on SQLite and PostgreSQL: an account whose
available + reserved + in-play chips are below the threshold claims once per UTC day; the
caller's id makes a repeated claim the first one; a rich account and a second claim the same
day are refused with their codes and change nothing; the ledger balances throughout."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from felt_contracts import subjects as s
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    AccountOpened,
    BuyIn,
    BuyInResult,
    Leaderboard,
    LeaderboardQuery,
    OpenAccount,
    Refill,
    Refilled,
    RefillQuery,
    RefillState,
    SessionHistory,
    SessionsQuery,
)
from felt_runtime.bus import BusError, call
from tests.support.waiting import refused
from tests.wallet.conftest import check_invariants, snapshot, start_wallet, stop_wallet
from tests.wallet.test_rules import bal


@pytest.fixture
async def low_wallet(nats_url: str, database_url: str):
    """New accounts get 30 chips: below the refill threshold (40), refilled up to 200."""
    w = await start_wallet(nats_url, database_url, grant=30, refill_below=40, refill_to=200)
    yield w
    await stop_wallet(w)


async def state(c, who: str) -> RefillState:
    return await call(c, s.WALLET_REFILL_STATE, RefillQuery(account_id=who), RefillState)


async def refill(c, who: str, refill_id: str) -> Refilled:
    return await call(c, s.WALLET_REFILL, Refill(account_id=who, refill_id=refill_id), Refilled)


async def refused_claim(wallet, who: str, refill_id: str, code: ErrorCode) -> BusError:
    """The claim is refused with `code` and nothing in the ledger changed."""
    before = await snapshot(wallet.engine)
    error = await refused(refill(wallet.client, who, refill_id), code)
    assert await snapshot(wallet.engine) == before
    return error


async def test_a_broke_account_claims_once_a_day_and_a_rich_one_is_refused(low_wallet) -> None:
    w, c = low_wallet, low_wallet.client
    for who in ("a", "b"):
        await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=who, owner_id=f"o-{who}"), AccountOpened)
    # chips at a table count: 10 available + 20 reserved is still below 40
    await call(c, s.WALLET_BUY_IN, BuyIn(account_id="a", table_id="t", amount=20, max_buy_in=200), BuyInResult)
    assert (await state(c, "a")).model_dump(include={"status", "total", "amount"}) == {
        "status": "eligible",
        "total": 30,
        "amount": 170,
    }
    first = await refill(c, "a", "claim-1")
    assert first.amount == 170 and first.available == 180
    assert first.next_at == datetime.combine(datetime.now(UTC).date() + timedelta(days=1), datetime.min.time(), UTC)
    assert await refill(c, "a", "claim-1") == first  # the same id: the first result, nothing moves
    assert (await bal(c, "a")).available == 180
    # another claim the same UTC day: refused with the time of the next one
    too_soon = await refused_claim(w, "a", "claim-2", ErrorCode.REFILL_TOO_SOON)
    assert too_soon.details["next_at"] == first.next_at.isoformat()
    assert (await state(c, "a")).status == "claimed_today"
    # the next UTC day the account is no longer low: refused as not needed, with what it holds
    w.writer.clock = lambda: datetime.now(UTC) + timedelta(days=1)
    rich = await refused_claim(w, "a", "claim-2", ErrorCode.REFILL_NOT_NEEDED)
    assert rich.details == {"total": 200, "below": 40}
    assert (await state(c, "a")).status == "has_chips"
    # b claims on that day; a second account's claim is its own
    assert (await refill(c, "b", "claim-1")).amount == 170

    totals = await check_invariants(w.engine)
    assert totals["grants"] == 30 + 30 + 170 + 170
    board = await call(c, s.WALLET_LEADERBOARD, LeaderboardQuery(limit=10), Leaderboard)
    assert {e.account_id: e.granted for e in board.entries} == {"a": 200, "b": 200}
    history = await call(c, s.WALLET_SESSIONS, SessionsQuery(account_id="a"), SessionHistory)
    assert (history.granted, history.refilled) == (200, 170)


async def test_an_unknown_account_is_refused(low_wallet) -> None:
    await refused_claim(low_wallet, "nobody", "x", ErrorCode.NOT_FOUND)


def test_the_default_refill_threshold_is_the_smallest_buy_in_of_the_default_blind_tables() -> None:
    from felt_table.model.lobby import DEFAULT_TABLES
    from felt_wallet.settings import WalletSettings

    blinds = [t.min_buy_in for t in DEFAULT_TABLES if t.big_blind > 0]
    assert WalletSettings().refill_below == min(blinds)
    assert WalletSettings().grants().refill_to == WalletSettings().grant
