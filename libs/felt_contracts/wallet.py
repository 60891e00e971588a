"""Wallet messages: the ledger's commands, queries and the transfer event.

(The wallet engineer completes the command models here; `TransferEvent` is the shape the
limits service and history consumers rely on.)
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from felt_contracts.base import Cursor, Event, Message, Request

#: The largest amount any single wallet message may carry (far above any real stack).
MAX_AMOUNT = 10**12

Amount = Annotated[int, Field(strict=True, gt=0, le=MAX_AMOUNT)]
Bound = Annotated[int, Field(strict=True, ge=0, le=MAX_AMOUNT)]
Id = Annotated[str, Field(min_length=1, max_length=200)]


class TransferKind(StrEnum):
    GRANT = "grant"  # house -> available (starting chips)
    REFILL = "refill"  # house -> available (a refill claimed by an account low on chips)
    BUY_IN = "buy_in"  # available -> reserve at a table
    COMMIT = "commit"  # reserve (or available, ante-nl-1) -> hand escrow
    PAYOUT = "payout"  # hand escrow -> winner's reserve/available (settlement)
    RETURN = "return"  # hand escrow -> contributor: unmatched chips returned at settlement
    REFUND = "refund"  # hand escrow -> contributor: hand cancelled
    CASH_OUT = "cash_out"  # reserve -> available
    POOL_ENTRY = "pool_entry"  # available -> a tournament's prize pool (its buy-in)
    POOL_REFUND = "pool_refund"  # prize pool -> the entry's available (unregistered, cancelled)
    PRIZE = "prize"  # prize pool -> a finisher's available
    CHIPS_ISSUE = "chips_issue"  # a tournament's issuer -> an entrant's tournament-chip account
    CHIPS_RETIRE = "chips_retire"  # a tournament-chip account -> its tournament's issuer


class TransferEvent(Event):
    """Published once per committed transfer; `event_id` is the transfer id (deduplicate on it).
    A session closed with an empty reserve moves no chips but is announced too, as a
    `cash_out` of 0 (its would-be transfer id), so limits release its reserved exposure; so is a
    seat dealt into a settled hand at a buy-in table that wagered nothing, as a `commit` of 0
    (limits counts the hand for its session)."""

    transfer_id: str
    kind: TransferKind
    account_id: str  # the player account (one per participant) the transfer concerns
    owner_id: str | None = None  # the owner account behind it (limits aggregate per owner)
    session_id: str | None = None  # the table session (buy-in .. cash-out) it belongs to
    table_id: str | None = None
    hand_id: str | None = None
    pool_id: str | None = None  # the tournament prize pool of a pool transfer
    amount: int = Field(ge=0)  # 0: an empty session's close, or a dealt seat that wagered nothing
    at: datetime


# --- commands ------------------------------------------------------------------------------


class OpenAccount(Request):
    """Open a wallet account (one per participant) with the starting grant. Idempotent on
    `account_id`: opening again with the same owner returns the first result."""

    account_id: Id
    owner_id: Id | None = None  # the owner behind the participant (limits aggregate on it)


#: A table replica's lease on the table (tables over replicas): the wallet refuses a command
#: whose lease is older than one it has seen for that table (`conflict`, reason `stale_lease`),
#: so a replica that lost its table cannot move a chip. None: one table replica, no fencing.
Lease = Annotated[int, Field(strict=True, ge=1)] | None


class TableScoped(Request):
    """A wallet command a table sends about itself."""

    table_id: Id
    lease: Lease = None


class BuyIn(TableScoped):
    """Move `amount` from available into a reserve at `table_id` (opens a table session)."""

    account_id: Id
    table_id: Id
    amount: Amount
    min_buy_in: Bound = 0
    max_buy_in: Bound = MAX_AMOUNT


class Commit(TableScoped):
    """One chip-committing action: reserve (or available, `from_available`) -> hand escrow.
    Transfer id `commit:{hand_id}:{seq}`; a retry with the same hand/seq returns the first result."""

    account_id: Id
    table_id: Id
    hand_id: Id
    seq: Annotated[int, Field(strict=True, ge=0, le=10**9)]
    amount: Amount
    from_available: bool = False  # profile ante-nl-1: the account balance plays
    #: ante-nl-1 (no wallet session): the table's play session, carried to the transfer and its
    #: event so limits count hands and wager under the session id the table checks.
    session_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class Payout(Message):
    account_id: Id
    amount: Amount


class Wager(Message):
    account_id: Id
    amount: Bound  # chips committed over the whole hand; 0: dealt in, wagered nothing


class Settle(TableScoped):
    """End a hand: pay its whole escrow out. `payouts` + `returns` must equal the escrow.

    `wagers` (buy-in tables, where nothing is escrowed during the hand: the reserve is the
    hold): what every dealt seat committed over the hand. In the same transaction each is moved
    from that seat's reserve into the hand's escrow (a `commit` transfer, `commit:{hand}:w{n}`;
    a wager of 0 is announced as a `commit` of 0, so limits counts the hand), then the payouts
    and returns empty it: each seat's delta (payouts + returns - wager) sums to zero over the
    hand, and a refused settlement moves nothing."""

    table_id: Id
    hand_id: Id
    payouts: list[Payout] = Field(default_factory=list, max_length=100)
    returns: list[Payout] = Field(default_factory=list, max_length=100)  # unmatched chips
    wagers: list[Wager] = Field(default_factory=list, max_length=100)


class CancelHand(TableScoped):
    """End a hand by refunding every contributor exactly what they put in."""

    table_id: Id
    hand_id: Id


class CancelTable(TableScoped):
    """Restart policy: cancel every open hand of the table, cash out every reserve there."""

    table_id: Id


class CashOut(TableScoped):
    """Reserve at `table_id` -> available; `"all"` empties it. Emptying closes the session."""

    account_id: Id
    table_id: Id
    amount: Amount | Literal["all"] = "all"


class Refill(Request):
    """Claim a refill (docs/wallet.md "Refills"): the house tops the account's chips up to the
    refill level when available + reserved + in play is below the refill threshold, at most once
    per UTC day. `refill_id` is the caller's: claiming again with it returns the first result and
    moves nothing."""

    account_id: Id
    refill_id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[!-~]+$")]


class RefillQuery(Request):
    """Whether the account may claim a refill now, and how much it would bring."""

    account_id: Id


class PoolEntry(Request):
    """A tournament buy-in: `amount` from the account's available chips into the prize pool
    `pool_id`. `entry_id` (the caller's) is the idempotency key and the transfer id's tail: the
    same entry again returns the first result and moves nothing."""

    pool_id: Id
    entry_id: Id
    account_id: Id
    amount: Amount


class PoolRefund(Request):
    """Give one entry's buy-in back (prize pool -> its account's available), once."""

    pool_id: Id
    entry_id: Id


class PoolClose(Request):
    """End a prize pool, once: `paid` pays `payouts` (they must empty the pool exactly), or
    `refunded` gives every entry not refunded yet its buy-in back. Either one ends the pool; the
    same close again returns the first result, a different one is refused (`conflict`)."""

    pool_id: Id
    outcome: Literal["paid", "refunded"]
    payouts: list[Payout] = Field(default_factory=list, max_length=10_000)


class PoolQuery(Request):
    pool_id: Id


#: tournament chips are kept in accounts of their own, one per entrant and tournament
CHIPS_PREFIX = "chips:"


def chips_account(ledger_id: str, participant_id: str) -> str:
    """The wallet account holding `participant_id`'s chips of tournament `ledger_id` (its id has
    no `:`): never a player's own account, so never in a balance or on the leaderboard."""
    return f"{CHIPS_PREFIX}{ledger_id}:{participant_id}"


def is_chips_account(account_id: str) -> bool:
    return account_id.startswith(CHIPS_PREFIX)


class ChipsStack(Message):
    participant_id: Id
    amount: Amount


class ChipsIssue(Request):
    """Issue tournament chips: each stack from the tournament's issuer (`ledger_id`'s own
    account, which goes negative by what is out, so the ledger still sums to zero) to the
    participant's chips account (opened here), once per (`ledger_id`, `issue_id`)."""

    ledger_id: Id
    issue_id: Id
    stacks: list[ChipsStack] = Field(min_length=1, max_length=10_000)


class ChipsRetire(Request):
    """Retire a tournament's chips, once: every chips account's available chips go back to the
    issuer, which ends at zero. Refused (`conflict`, reason `chips_at_table`) while any of them
    sits in a table's reserve or a hand's escrow; after it no chips are issued under the ledger."""

    ledger_id: Id


class BalanceQuery(Request):
    account_id: Id


class LeaderboardQuery(Request):
    """A page of the leaderboard: by total chips, highest first, then by account id."""

    limit: Annotated[int, Field(strict=True, ge=1, le=100)] = 10
    after: Cursor | None = None


class SessionsQuery(Request):
    """A page of an account's table sessions: newest opened first, then by session id."""

    account_id: Id
    limit: Annotated[int, Field(strict=True, ge=1, le=500)] = 50
    after: Cursor | None = None


# --- results -------------------------------------------------------------------------------


class TransferInfo(Message):
    transfer_id: str
    kind: TransferKind
    account_id: str
    amount: int


class AccountOpened(Message):
    account_id: str
    owner_id: str | None
    granted: int
    transfer_id: str


class Refilled(Message):
    account_id: str
    transfer_id: str
    amount: int
    available: int  # after the refill
    next_at: datetime  # the start of the next UTC day: the earliest next claim


class RefillState(Message):
    account_id: str
    #: `eligible`; `has_chips`: the total is at or above `below`; `claimed_today`: see `next_at`
    status: Literal["eligible", "has_chips", "claimed_today"]
    total: int  # available + reserved + in play
    below: int  # a claim needs the total under this
    amount: int  # what a claim now brings (0 unless eligible)
    next_at: datetime | None = None  # claimed today: when the next claim may be made


class BuyInResult(Message):
    transfer_id: str
    session_id: str
    reserved: int  # the reserve at this table after the buy-in
    available: int


class CommitResult(Message):
    transfer_id: str
    hand_id: str
    escrow: int  # the hand's escrow after this commit
    remaining: int  # what is left in the source (reserve or available)


class HandOutcome(Message):
    hand_id: str
    table_id: str
    status: Literal["settled", "cancelled"]
    transfers: list[TransferInfo]


class CashOutResult(Message):
    transfer_id: str | None  # None when the reserve was already empty ("all" of nothing)
    session_id: str
    amount: int
    reserved: int
    available: int
    session_closed: bool


class TableCancelled(Message):
    table_id: str
    hands: list[HandOutcome]
    cash_outs: list[CashOutResult]


class ChipsMoved(Message):
    """What an issue or a retirement moved; `issuer`: the issuer's balance after it (minus the
    chips out)."""

    ledger_id: str
    issuer: int
    transfers: list[TransferInfo]


class PoolEntryResult(Message):
    transfer_id: str
    pool_id: str
    entry_id: str
    pool: int  # the prize pool after the entry
    available: int  # the account's available chips after the entry


class PoolRefundResult(Message):
    transfer_id: str
    pool_id: str
    entry_id: str
    amount: int
    pool: int


class PoolOutcome(Message):
    pool_id: str
    status: Literal["paid", "refunded"]
    transfers: list[TransferInfo]


class PoolEntryInfo(Message):
    entry_id: str
    account_id: str
    amount: int
    refunded: bool


class PoolState(Message):
    pool_id: str
    balance: int
    status: Literal["open", "paid", "refunded"]
    entries: list[PoolEntryInfo]


class Balance(Message):
    account_id: str
    owner_id: str | None
    available: int
    reserved: int  # sum of reserves at tables (excludes escrow)
    in_play: int  # chips in escrow of open hands
    reserves: dict[str, int]  # table_id -> reserve


class LeaderboardEntry(Message):
    rank: int = 0  # 1 for the most chips, counted across pages
    account_id: str
    owner_id: str | None
    total: int  # available + reserved (escrow excluded)
    granted: int = 0  # chips the house ever gave the account: the starting grant and refills


class Leaderboard(Message):
    entries: list[LeaderboardEntry]
    next: str | None = None  # the cursor of the next page, if any


class SessionInfo(Message):
    session_id: str
    table_id: str
    status: Literal["open", "closed"]
    buy_in: int
    cash_out: int
    net: int  # cash_out - buy_in (final once closed)
    gross_wagers: int  # sum of commits, not reduced by returns
    hands_played: int
    opened_at: datetime
    closed_at: datetime | None


class SessionHistory(Message):
    account_id: str
    sessions: list[SessionInfo]
    next: str | None = Field(
        default=None, description="ask again with `after=next` for the next page; null: the last page"
    )
    granted: int = 0  # chips the house ever gave the account: the starting grant and refills
    refilled: int = 0  # of which refills
