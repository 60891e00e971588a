"""Refills: the one place that decides whether an account low on chips may be given more
(docs/wallet.md "Refills").

An account may claim a refill when its chips — available, reserved at tables and in play in
open hands — are below `below` (the smallest buy-in of the default lobby), at most once per
UTC day; the refill brings that total up to `to` (the starting grant). The ledger applies a
claim as one transfer from the house under the caller's id; the day is marked in the same
transaction, so two claims on one day cannot both pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Literal

from felt_contracts.wallet import RefillState


@dataclass(frozen=True)
class Grants:
    """What the house gives: `grant` to a new account; a refill up to `refill_to` when an
    account's total is below `refill_below`."""

    grant: int
    refill_below: int
    refill_to: int


def refill_key(account_id: str, refill_id: str) -> str:
    """The claim's idempotency key and its transfer id."""
    return f"refill:{account_id}:{refill_id}"


def day_key(account_id: str, now: datetime) -> str:
    """Marks the UTC day an account claimed a refill."""
    return f"refill_day:{account_id}:{now.astimezone(UTC).date().isoformat()}"


def next_day(now: datetime) -> datetime:
    """The start of the UTC day after `now`: when the next claim may be made."""
    return datetime.combine(now.astimezone(UTC).date() + timedelta(days=1), time(), tzinfo=UTC)


def state(grants: Grants, account_id: str, total: int, claimed_today: bool, now: datetime) -> RefillState:
    """Whether `account_id`, holding `total` chips, may claim now; what a claim would bring."""
    status: Literal["eligible", "has_chips", "claimed_today"]
    if claimed_today:
        status = "claimed_today"
    elif total >= grants.refill_below:
        status = "has_chips"
    else:
        status = "eligible"
    return RefillState(
        account_id=account_id,
        status=status,
        total=total,
        below=grants.refill_below,
        amount=max(grants.refill_to - total, 0) if status == "eligible" else 0,
        next_at=next_day(now) if claimed_today else None,
    )
