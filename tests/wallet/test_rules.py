"""Wallet rules over the bus (in-process wallet, real NATS, SQLite and PostgreSQL)."""

from __future__ import annotations


from felt_contracts import subjects as s
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    AccountOpened,
    Balance,
    BalanceQuery,
    BuyIn,
    BuyInResult,
    CancelHand,
    CancelTable,
    CashOut,
    CashOutResult,
    Commit,
    CommitResult,
    HandOutcome,
    Leaderboard,
    LeaderboardQuery,
    OpenAccount,
    Payout,
    SessionHistory,
    SessionsQuery,
    Settle,
    TableCancelled,
    Wager,
)
from felt_runtime.bus import call
from tests.wallet.conftest import check_invariants, snapshot
from tests.support.waiting import refused as support_refused


async def setup_table(c, players=("a", "b"), stack=100, table="t"):
    for p in players:
        await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p, owner_id=f"owner-{p}"), AccountOpened)
        await call(
            c,
            s.WALLET_BUY_IN,
            BuyIn(account_id=p, table_id=table, amount=stack, min_buy_in=20, max_buy_in=200),
            BuyInResult,
        )


async def commit(c, who, hand, seq, amount, table="t", **kw):
    return await call(
        c,
        s.WALLET_COMMIT,
        Commit(account_id=who, table_id=table, hand_id=hand, seq=seq, amount=amount, **kw),
        CommitResult,
    )


async def bal(c, who) -> Balance:
    return await call(c, s.WALLET_BALANCE, BalanceQuery(account_id=who), Balance)


async def refused(wallet, code: ErrorCode, subject: str, req, model=BuyInResult):
    """Assert the refusal code and that nothing in the ledger changed."""
    before = await snapshot(wallet.engine)
    await support_refused(call(wallet.client, subject, req, model), code)
    assert await snapshot(wallet.engine) == before


async def test_open_account_grants_200_and_is_idempotent(wallet) -> None:
    c = wallet.client
    first = await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id="a", owner_id="o"), AccountOpened)
    again = await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id="a", owner_id="o"), AccountOpened)
    assert first == again and first.granted == 200
    assert (await bal(c, "a")).available == 200
    await refused(
        wallet, ErrorCode.CONFLICT, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id="a", owner_id="other"), AccountOpened
    )
    assert (await check_invariants(wallet.engine))["grants"] == 200


async def test_balance_splits_available_reserved_in_play_and_leaderboard_excludes_escrow(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    await commit(c, "a", "h1", 1, 30)
    b = await bal(c, "a")
    assert (b.available, b.reserved, b.in_play, b.reserves) == (100, 70, 30, {"t": 70})
    board = await call(c, s.WALLET_LEADERBOARD, LeaderboardQuery(limit=5), Leaderboard)
    assert [(e.account_id, e.total) for e in board.entries] == [("b", 200), ("a", 170)]


async def test_same_transfer_id_same_content_moves_once_different_content_conflicts(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    first = await commit(c, "a", "h1", 1, 10)
    assert await commit(c, "a", "h1", 1, 10) == first
    assert (await bal(c, "a")).reserved == 90
    await refused(
        wallet,
        ErrorCode.CONFLICT,
        s.WALLET_COMMIT,
        Commit(account_id="a", table_id="t", hand_id="h1", seq=1, amount=11),
    )
    buy = BuyIn(account_id="a", table_id="t2", amount=50)
    await call(c, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="h1"), HandOutcome)
    r1 = await call(c, s.WALLET_BUY_IN, buy, BuyInResult)
    assert await call(c, s.WALLET_BUY_IN, buy, BuyInResult) == r1  # same message_id: moved once
    assert (await bal(c, "a")).available == 50
    await refused(wallet, ErrorCode.CONFLICT, s.WALLET_BUY_IN, buy.model_copy(update={"amount": 60}))
    await check_invariants(wallet.engine)


async def test_settle_pays_winners_and_returns_unmatched_chips(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    await commit(c, "a", "h1", 1, 50)
    await commit(c, "b", "h1", 2, 20)
    out = await call(
        c,
        s.WALLET_SETTLE,
        Settle(
            table_id="t",
            hand_id="h1",
            payouts=[Payout(account_id="b", amount=40)],
            returns=[Payout(account_id="a", amount=30)],
        ),
        HandOutcome,
    )
    assert [(t.kind.value, t.account_id, t.amount) for t in out.transfers] == [("payout", "b", 40), ("return", "a", 30)]
    assert ((await bal(c, "a")).reserved, (await bal(c, "b")).reserved) == (80, 120)
    assert (await bal(c, "a")).in_play == 0
    hist = await call(c, s.WALLET_SESSIONS, SessionsQuery(account_id="a"), SessionHistory)
    assert (hist.sessions[0].gross_wagers, hist.sessions[0].hands_played) == (50, 1)  # returns do not reduce wagers
    await check_invariants(wallet.engine)


async def test_settle_must_empty_the_escrow_exactly(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    await commit(c, "a", "h1", 1, 10)
    await commit(c, "b", "h1", 2, 10)
    for payouts in (
        [Payout(account_id="a", amount=19)],
        [Payout(account_id="a", amount=21)],
        [Payout(account_id="zz", amount=20)],
    ):
        await refused(
            wallet,
            ErrorCode.INVALID_AMOUNT,
            s.WALLET_SETTLE,
            Settle(table_id="t", hand_id="h1", payouts=payouts),
            HandOutcome,
        )


async def test_a_hand_ends_exactly_once(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    await commit(c, "a", "h1", 1, 10)
    await commit(c, "b", "h1", 2, 10)
    cancelled = await call(c, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="h1"), HandOutcome)
    assert await call(c, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="h1"), HandOutcome) == cancelled
    assert sorted((t.account_id, t.amount) for t in cancelled.transfers) == [("a", 10), ("b", 10)]
    settle = Settle(table_id="t", hand_id="h1", payouts=[Payout(account_id="a", amount=20)])
    await refused(wallet, ErrorCode.HAND_CLOSED, s.WALLET_SETTLE, settle, HandOutcome)
    await refused(
        wallet,
        ErrorCode.HAND_CLOSED,
        s.WALLET_COMMIT,
        Commit(account_id="a", table_id="t", hand_id="h1", seq=3, amount=5),
        CommitResult,
    )
    await commit(c, "a", "h2", 1, 10)
    await commit(c, "b", "h2", 2, 10)
    settled = await call(
        c, s.WALLET_SETTLE, Settle(table_id="t", hand_id="h2", payouts=[Payout(account_id="a", amount=20)]), HandOutcome
    )
    assert (
        await call(
            c,
            s.WALLET_SETTLE,
            Settle(table_id="t", hand_id="h2", payouts=[Payout(account_id="a", amount=20)]),
            HandOutcome,
        )
        == settled
    )
    await refused(
        wallet, ErrorCode.HAND_CLOSED, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="h2"), HandOutcome
    )
    await refused(
        wallet,
        ErrorCode.CONFLICT,
        s.WALLET_SETTLE,
        Settle(table_id="t", hand_id="h2", payouts=[Payout(account_id="b", amount=20)]),
        HandOutcome,
    )
    await check_invariants(wallet.engine)


async def test_chips_in_play_block_buy_in_elsewhere_and_again_until_the_hand_ends(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    await commit(c, "a", "h1", 1, 10)
    await refused(wallet, ErrorCode.CHIPS_IN_PLAY, s.WALLET_BUY_IN, BuyIn(account_id="a", table_id="t2", amount=50))
    await refused(wallet, ErrorCode.CHIPS_IN_PLAY, s.WALLET_BUY_IN, BuyIn(account_id="a", table_id="t", amount=50))
    await call(c, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="h1"), HandOutcome)
    await call(c, s.WALLET_BUY_IN, BuyIn(account_id="a", table_id="t2", amount=50), BuyInResult)


async def test_ante_nl_1_commits_from_the_available_balance(wallet) -> None:
    c = wallet.client
    for p in ("a", "b"):
        await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p), AccountOpened)
        await commit(c, p, "h1", 1 if p == "a" else 2, 10, table="ante", from_available=True)
    assert ((await bal(c, "a")).available, (await bal(c, "a")).in_play) == (190, 10)
    await call(
        c,
        s.WALLET_SETTLE,
        Settle(table_id="ante", hand_id="h1", payouts=[Payout(account_id="b", amount=20)]),
        HandOutcome,
    )
    assert ((await bal(c, "a")).available, (await bal(c, "b")).available) == (190, 210)
    await check_invariants(wallet.engine)


async def test_cancel_table_refunds_open_hands_once_and_cashes_out_reserves(wallet) -> None:
    c = wallet.client
    await setup_table(c)
    await commit(c, "a", "done", 1, 10)
    await commit(c, "b", "done", 2, 10)
    await call(
        c,
        s.WALLET_SETTLE,
        Settle(table_id="t", hand_id="done", payouts=[Payout(account_id="b", amount=20)]),
        HandOutcome,
    )
    await commit(c, "a", "open", 1, 30)
    await commit(c, "b", "open", 2, 15)
    first = await call(c, s.WALLET_CANCEL_TABLE, CancelTable(table_id="t"), TableCancelled)
    assert [h.hand_id for h in first.hands] == ["open"]
    assert sorted(co.amount for co in first.cash_outs) == [90, 110]
    again = await call(c, s.WALLET_CANCEL_TABLE, CancelTable(table_id="t"), TableCancelled)
    assert again.hands == [] and again.cash_outs == []
    assert ((await bal(c, "a")).available, (await bal(c, "b")).available) == (190, 210)  # completed payout kept
    assert all(x.reserved == 0 and x.in_play == 0 for x in [await bal(c, "a"), await bal(c, "b")])
    cancelled = await call(c, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="open"), HandOutcome)
    assert cancelled == first.hands[0]  # the table's later cancel of that hand gets the first outcome
    await check_invariants(wallet.engine)


async def test_cash_out_amount_or_all_closes_session_and_history(wallet) -> None:
    c = wallet.client
    await setup_table(c, players=("a",))
    part = await call(c, s.WALLET_CASH_OUT, CashOut(account_id="a", table_id="t", amount=30), CashOutResult)
    assert (part.reserved, part.session_closed) == (70, False)
    await refused(
        wallet,
        ErrorCode.INSUFFICIENT_FUNDS,
        s.WALLET_CASH_OUT,
        CashOut(account_id="a", table_id="t", amount=71),
        CashOutResult,
    )
    rest = await call(c, s.WALLET_CASH_OUT, CashOut(account_id="a", table_id="t"), CashOutResult)
    assert (rest.amount, rest.session_closed, rest.available) == (70, True, 200)
    hist = await call(c, s.WALLET_SESSIONS, SessionsQuery(account_id="a"), SessionHistory)
    assert [(x.status, x.buy_in, x.cash_out, x.net) for x in hist.sessions] == [("closed", 100, 100, 0)]
    await refused(wallet, ErrorCode.NOT_FOUND, s.WALLET_CASH_OUT, CashOut(account_id="a", table_id="t"), CashOutResult)


async def test_bad_input_gets_a_stable_code_and_changes_nothing(wallet) -> None:
    c = wallet.client
    await setup_table(c, players=("a",))
    await refused(wallet, ErrorCode.NOT_FOUND, s.WALLET_BUY_IN, BuyIn(account_id="ghost", table_id="t", amount=50))
    await refused(
        wallet,
        ErrorCode.NOT_FOUND,
        s.WALLET_COMMIT,
        Commit(account_id="ghost", table_id="t", hand_id="h", seq=1, amount=5),
        CommitResult,
    )
    await refused(wallet, ErrorCode.NOT_FOUND, s.WALLET_BALANCE, BalanceQuery(account_id="ghost"), Balance)
    await refused(
        wallet,
        ErrorCode.INVALID_AMOUNT,
        s.WALLET_BUY_IN,
        BuyIn(account_id="a", table_id="t2", amount=10, min_buy_in=20, max_buy_in=100),
    )
    await refused(
        wallet,
        ErrorCode.INVALID_AMOUNT,
        s.WALLET_BUY_IN,
        BuyIn(account_id="a", table_id="t2", amount=101, min_buy_in=20, max_buy_in=100),
    )
    await refused(
        wallet, ErrorCode.INSUFFICIENT_FUNDS, s.WALLET_BUY_IN, BuyIn(account_id="a", table_id="t2", amount=101)
    )
    await refused(
        wallet,
        ErrorCode.INSUFFICIENT_FUNDS,
        s.WALLET_COMMIT,
        Commit(account_id="a", table_id="t", hand_id="h", seq=1, amount=101),
        CommitResult,
    )
    await refused(
        wallet,
        ErrorCode.INSUFFICIENT_FUNDS,
        s.WALLET_COMMIT,
        Commit(account_id="a", table_id="nowhere", hand_id="h", seq=1, amount=1),
        CommitResult,
    )
    await refused(wallet, ErrorCode.NOT_FOUND, s.WALLET_SETTLE, Settle(table_id="t", hand_id="never"), HandOutcome)
    base = {"account_id": "a", "table_id": "t", "hand_id": "h", "seq": 1}
    before = await snapshot(wallet.engine)
    for amount in (0, -5, 1.5, "10", True, 10**13, None):
        reply = await (await c.request({**base, "amount": amount}, s.WALLET_COMMIT, timeout=5)).decode()
        assert reply["ok"] is False and reply["error"]["code"] == "malformed", amount
    for body in (b"not json{", b"{}", b'{"account_id": "a", "surprise": 1}'):
        reply = await (await c.request(body, s.WALLET_BUY_IN, timeout=5)).decode()
        assert reply["error"]["code"] == "malformed"
    assert await snapshot(wallet.engine) == before


def settle_wagers(hand="h1", **kw) -> Settle:
    """A buy-in table's hand: a wagered 50 and got 30 back, b wagered 20 and won the 40 pot, c was
    dealt in and wagered nothing (deltas -20, +20, 0); `kw` replaces fields."""
    return Settle(
        table_id="t",
        hand_id=hand,
        wagers=[Wager(account_id="a", amount=50), Wager(account_id="b", amount=20), Wager(account_id="c", amount=0)],
        payouts=[Payout(account_id="b", amount=40)],
        returns=[Payout(account_id="a", amount=30)],
    ).model_copy(update=kw)


async def test_a_buy_in_tables_hand_settles_once_from_the_reserves(wallet) -> None:
    c = wallet.client
    await setup_table(c, players=("a", "b", "c"))
    out = await call(c, s.WALLET_SETTLE, settle_wagers(), HandOutcome)
    assert [(t.kind.value, t.account_id, t.amount) for t in out.transfers] == [("payout", "b", 40), ("return", "a", 30)]
    reserves = [(await bal(c, p)).reserved for p in ("a", "b", "c")]
    assert reserves == [80, 120, 100]  # the deltas, out of and into the reserves
    assert [(await bal(c, p)).in_play for p in ("a", "b", "c")] == [0, 0, 0]
    assert await call(c, s.WALLET_SETTLE, settle_wagers(), HandOutcome) == out  # a resend moves nothing
    assert [(await bal(c, p)).reserved for p in ("a", "b", "c")] == reserves
    hist = {
        p: (await call(c, s.WALLET_SESSIONS, SessionsQuery(account_id=p), SessionHistory)).sessions[0] for p in "ac"
    }
    assert (hist["a"].gross_wagers, hist["a"].hands_played) == (50, 1)  # the wager, not the delta
    assert (hist["c"].gross_wagers, hist["c"].hands_played) == (0, 1)  # dealt in: the hand counts
    await refused(wallet, ErrorCode.CONFLICT, s.WALLET_SETTLE, settle_wagers(returns=[]), HandOutcome)
    await refused(
        wallet, ErrorCode.HAND_CLOSED, s.WALLET_CANCEL_HAND, CancelHand(table_id="t", hand_id="h1"), HandOutcome
    )
    await check_invariants(wallet.engine)


async def test_a_settlement_that_does_not_add_up_moves_nothing(wallet) -> None:
    c = wallet.client
    await setup_table(c, players=("a", "b", "c"))
    bad = [
        (ErrorCode.INVALID_AMOUNT, settle_wagers(returns=[Payout(account_id="a", amount=29)])),  # deltas sum to -1
        (ErrorCode.INVALID_AMOUNT, settle_wagers(payouts=[Payout(account_id="b", amount=41)])),  # deltas sum to +1
        (ErrorCode.INSUFFICIENT_FUNDS, settle_wagers(hand="h2", table_id="elsewhere")),
    ]
    for code, req in bad:
        await refused(wallet, code, s.WALLET_SETTLE, req, HandOutcome)
    await call(c, s.WALLET_CASH_OUT, CashOut(account_id="a", table_id="t", amount=60), CashOutResult)
    await refused(wallet, ErrorCode.INSUFFICIENT_FUNDS, s.WALLET_SETTLE, settle_wagers(hand="h3"), HandOutcome)
    await check_invariants(wallet.engine)
