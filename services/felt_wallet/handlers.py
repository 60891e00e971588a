"""Bus handlers: commands go through the group-commit writer, queries read directly.

Every subject answers concurrently (`CONCURRENCY` handlers in flight per subject): a command
only queues for the writer, which orders and batches them and applies each once per
`message_id`; a query is one read. Nothing relies on one request finishing before the next
starts.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects as s
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
    ChipsIssue,
    ChipsMoved,
    ChipsRetire,
    Commit,
    CommitResult,
    HandOutcome,
    Leaderboard,
    LeaderboardQuery,
    OpenAccount,
    Refill,
    Refilled,
    RefillQuery,
    RefillState,
    PoolClose,
    PoolEntry,
    PoolEntryResult,
    PoolOutcome,
    PoolQuery,
    PoolRefund,
    PoolRefundResult,
    PoolState,
    SessionHistory,
    SessionsQuery,
    Settle,
    TableCancelled,
)
from felt_runtime.bus import responder
from felt_wallet import pools, queries
from felt_wallet.refills import Grants
from felt_wallet.writer import Writer

#: handlers in flight per subject; commands wait in the writer's queue, which batches them
CONCURRENCY = 1024


def register(broker: Any, engine: AsyncEngine, writer: Writer, grants: Grants) -> None:
    q = s.WALLET_QUEUE

    @responder(broker, s.WALLET_OPEN_ACCOUNT, OpenAccount, queue=q, concurrency=CONCURRENCY)
    async def open_account(req: OpenAccount) -> AccountOpened:
        """Open an account with the starting grant (idempotent on account_id)."""
        return await writer.submit(req, AccountOpened)

    @responder(broker, s.WALLET_BUY_IN, BuyIn, queue=q, concurrency=CONCURRENCY)
    async def buy_in(req: BuyIn) -> BuyInResult:
        """Available -> reserve at a table, within its min/max; opens a table session."""
        return await writer.submit(req, BuyInResult)

    @responder(broker, s.WALLET_COMMIT, Commit, queue=q, concurrency=CONCURRENCY)
    async def commit(req: Commit) -> CommitResult:
        """Reserve (or available) -> hand escrow, one per chip-committing action."""
        return await writer.submit(req, CommitResult)

    @responder(broker, s.WALLET_SETTLE, Settle, queue=q, concurrency=CONCURRENCY)
    async def settle(req: Settle) -> HandOutcome:
        """Escrow -> winners; must empty the escrow exactly; a hand ends once."""
        return await writer.submit(req, HandOutcome)

    @responder(broker, s.WALLET_CANCEL_HAND, CancelHand, queue=q, concurrency=CONCURRENCY)
    async def cancel_hand(req: CancelHand) -> HandOutcome:
        """Escrow -> each contributor exactly what it put in; a hand ends once."""
        return await writer.submit(req, HandOutcome)

    @responder(broker, s.WALLET_CANCEL_TABLE, CancelTable, queue=q, concurrency=CONCURRENCY)
    async def cancel_table(req: CancelTable) -> TableCancelled:
        """Restart policy: cancel every open hand of the table, cash out its reserves."""
        return await writer.submit(req, TableCancelled)

    @responder(broker, s.WALLET_CASH_OUT, CashOut, queue=q, concurrency=CONCURRENCY)
    async def cash_out(req: CashOut) -> CashOutResult:
        """Reserve -> available (an amount or all); emptying the reserve closes the session."""
        return await writer.submit(req, CashOutResult)

    @responder(broker, s.WALLET_REFILL, Refill, queue=q, concurrency=CONCURRENCY)
    async def refill(req: Refill) -> Refilled:
        """House -> available for an account low on chips, once per UTC day (felt_wallet.refills)."""
        return await writer.submit(req, Refilled)

    @responder(broker, s.WALLET_REFILL_STATE, RefillQuery, queue=q, concurrency=CONCURRENCY)
    async def refill_state(req: RefillQuery) -> RefillState:
        """Whether the account may claim a refill now, and how much it would bring."""
        return await queries.refill_state(engine, grants, req.account_id, writer.clock())

    @responder(broker, s.WALLET_BALANCE, BalanceQuery, queue=q, concurrency=CONCURRENCY)
    async def balance(req: BalanceQuery) -> Balance:
        """Available, reserved and in play (escrow of open hands) of one account."""
        return await queries.balance(engine, req.account_id)

    @responder(broker, s.WALLET_LEADERBOARD, LeaderboardQuery, queue=q, concurrency=CONCURRENCY)
    async def leaderboard(req: LeaderboardQuery) -> Leaderboard:
        """Top accounts by available + reserved (escrow excluded)."""
        return await queries.leaderboard(engine, req.limit, req.after)

    @responder(broker, s.WALLET_SESSIONS, SessionsQuery, queue=q, concurrency=CONCURRENCY)
    async def sessions(req: SessionsQuery) -> SessionHistory:
        """Per table session: buy-in, cash-out, net, gross wagers, hands played."""
        return await queries.session_history(engine, req.account_id, req.limit, req.after)

    @responder(broker, s.WALLET_POOL_ENTRY, PoolEntry, queue=q, concurrency=CONCURRENCY)
    async def pool_entry(req: PoolEntry) -> PoolEntryResult:
        """A tournament buy-in: available -> prize pool, once per entry id."""
        return await writer.submit(req, PoolEntryResult)

    @responder(broker, s.WALLET_POOL_REFUND, PoolRefund, queue=q, concurrency=CONCURRENCY)
    async def pool_refund(req: PoolRefund) -> PoolRefundResult:
        """One entry's buy-in back (unregistered before the start), once."""
        return await writer.submit(req, PoolRefundResult)

    @responder(broker, s.WALLET_POOL_CLOSE, PoolClose, queue=q, concurrency=CONCURRENCY)
    async def pool_close(req: PoolClose) -> PoolOutcome:
        """End a prize pool once: pay the prizes (emptying it exactly) or refund every entry."""
        return await writer.submit(req, PoolOutcome)

    @responder(broker, s.WALLET_POOL, PoolQuery, queue=q, concurrency=CONCURRENCY)
    async def pool(req: PoolQuery) -> PoolState:
        """A prize pool's balance, how it ended and its entries."""
        return await pools.state(engine, req.pool_id)

    @responder(broker, s.WALLET_CHIPS_ISSUE, ChipsIssue, queue=q, concurrency=CONCURRENCY)
    async def chips_issue(req: ChipsIssue) -> ChipsMoved:
        """A tournament's starting stacks: its issuer -> each entrant's chips account, once."""
        return await writer.submit(req, ChipsMoved)

    @responder(broker, s.WALLET_CHIPS_RETIRE, ChipsRetire, queue=q, concurrency=CONCURRENCY)
    async def chips_retire(req: ChipsRetire) -> ChipsMoved:
        """A tournament's end: every chips account back to its issuer, which ends at zero; once."""
        return await writer.submit(req, ChipsMoved)
