"""Wallet messages: the ledger's commands, queries and the transfer event.

(The wallet engineer completes the command models here; `TransferEvent` is the shape the
limits service and history consumers rely on.)
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from felt_contracts.base import Event


class TransferKind(StrEnum):
    GRANT = "grant"  # house -> available (starting chips)
    BUY_IN = "buy_in"  # available -> reserve at a table
    COMMIT = "commit"  # reserve (or available, ante-nl-1) -> hand escrow
    PAYOUT = "payout"  # hand escrow -> winner's reserve/available (settlement)
    RETURN = "return"  # hand escrow -> contributor: unmatched chips returned at settlement
    REFUND = "refund"  # hand escrow -> contributor: hand cancelled
    CASH_OUT = "cash_out"  # reserve -> available


class TransferEvent(Event):
    """Published once per committed transfer; `event_id` is the transfer id (deduplicate on it)."""

    transfer_id: str
    kind: TransferKind
    account_id: str  # the player account (one per participant) the transfer concerns
    owner_id: str | None = None  # the owner account behind it (limits aggregate per owner)
    session_id: str | None = None  # the table session (buy-in .. cash-out) it belongs to
    table_id: str | None = None
    hand_id: str | None = None
    amount: int = Field(gt=0)
    at: datetime
