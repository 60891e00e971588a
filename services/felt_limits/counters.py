"""Counters from the wallet's transfer events, each event applied exactly once.

- BUY_IN: daily buy-in (owner and participant, UTC day of the transfer) and the session's
  buy-ins (reserved exposure).
- COMMIT: daily gross wager (owner and participant), the session's wager, and the hand
  counts for the session the first time one of its commits is seen.
- CASH_OUT: the session's cash-outs, and the session is closed (its exposure is 0).
- RETURN, REFUND, PAYOUT, GRANT: counted nowhere; nothing ever reduces gross wager.
"""

from __future__ import annotations

from datetime import UTC

from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts.wallet import TransferEvent, TransferKind
from felt_limits import store
from felt_limits.clock import Clock


def session_key(event: TransferEvent) -> str:
    """The session an event belongs to; events without one get a per account-and-table key."""
    return event.session_id or f"{event.account_id}@{event.table_id or '-'}"


async def apply_event(engine: AsyncEngine, clock: Clock, event: TransferEvent) -> bool:
    """Apply one event in one transaction; False when its id was already applied."""
    owner = event.owner_id or event.account_id  # an account without an owner is its own owner
    day = event.at.astimezone(UTC).date() if event.at.tzinfo else event.at.date()
    async with engine.begin() as conn:
        if not await store.mark_event(conn, event.event_id, event.kind.value, clock.now()):
            return False
        session = session_key(event)
        if event.kind is TransferKind.BUY_IN:
            await store.add_daily(conn, "owner", owner, day, buy_in=event.amount)
            await store.add_daily(conn, "participant", event.account_id, day, buy_in=event.amount)
            await store.add_session(conn, session, owner, event.account_id, bought_in=event.amount)
        elif event.kind is TransferKind.COMMIT:
            await store.add_daily(conn, "owner", owner, day, wager=event.amount)
            await store.add_daily(conn, "participant", event.account_id, day, wager=event.amount)
            new_hand = bool(event.hand_id) and await store.add_hand(conn, session, event.hand_id or "")
            await store.add_session(conn, session, owner, event.account_id, wager=event.amount, hands=int(new_hand))
        elif event.kind is TransferKind.CASH_OUT:
            await store.add_session(conn, session, owner, event.account_id, cashed_out=event.amount, close=True)
    return True
