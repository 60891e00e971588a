"""Counters from the wallet's transfer events, each event applied exactly once.

- BUY_IN: daily buy-in (owner and participant, UTC day of the transfer) and the session's
  buy-ins (reserved exposure).
- COMMIT: daily gross wager (owner and participant), the session's wager, and the hand
  counts for the session the first time one of its commits is seen.
- CASH_OUT: the session's cash-outs, and the session is closed (its exposure is 0); the wallet
  announces an empty session's close as a CASH_OUT of 0.
- POOL_ENTRY (a tournament buy-in): daily buy-in (owner and participant); no table session.
- RETURN, REFUND, PAYOUT, GRANT, POOL_REFUND, PRIZE: counted nowhere; nothing ever reduces
  gross wager or daily buy-in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts.wallet import TransferEvent, TransferKind
from felt_limits import store
from felt_limits.clock import Clock


def session_key(event: TransferEvent) -> str:
    """The session an event belongs to; events without one get a per account-and-table key."""
    return event.session_id or f"{event.account_id}@{event.table_id or '-'}"


COUNTED = {TransferKind.BUY_IN, TransferKind.COMMIT, TransferKind.CASH_OUT}


@dataclass
class Counted:
    """What a batch added to the counters: the events that were new, the (buy-in, wager) added
    to each daily row, and each touched session's row of deltas (`bought_in`, `cashed_out`,
    `wager`, `hands`, `closed`) as `store.add_sessions` wrote it."""

    fresh: list[TransferEvent] = field(default_factory=list)
    days: dict[tuple[str, str, date], tuple[int, int]] = field(default_factory=dict)
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)


async def apply_events(engine: AsyncEngine, clock: Clock, events: list[TransferEvent]) -> Counted:
    """Apply a batch of events in ONE transaction and a handful of statements (each id at most
    once, also within the batch; deltas summed per counter row first); what it added. All or
    nothing: a failure applies none, and the batch is redelivered."""
    firsts = list({e.event_id: e for e in reversed(events)}.values())[::-1]  # first of each id, in order
    if not firsts:
        return Counted()
    async with engine.begin() as conn:
        fresh_ids = await store.mark_events(conn, [(e.event_id, e.kind.value) for e in firsts], clock.now())
        fresh = [e for e in firsts if e.event_id in fresh_ids]
        days: dict[tuple[str, str, date], tuple[int, int]] = {}
        sessions: dict[str, dict[str, Any]] = {}
        hands: dict[tuple[str, str], None] = {}
        for e in fresh:
            owner = e.owner_id or e.account_id  # an account without an owner is its own owner
            day = e.at.astimezone(UTC).date() if e.at.tzinfo else e.at.date()
            if e.kind is TransferKind.POOL_ENTRY:
                for key in (("owner", owner, day), ("participant", e.account_id, day)):
                    b, w = days.get(key, (0, 0))
                    days[key] = (b + e.amount, w)
                continue
            if e.kind not in COUNTED:
                continue
            sid = session_key(e)
            row = sessions.setdefault(
                sid,
                {
                    "session_id": sid,
                    "owner_id": owner,
                    "account_id": e.account_id,
                    "bought_in": 0,
                    "cashed_out": 0,
                    "wager": 0,
                    "hands": 0,
                    "closed": False,
                },
            )
            if e.kind in (TransferKind.BUY_IN, TransferKind.COMMIT):
                buy_in, wager = (e.amount, 0) if e.kind is TransferKind.BUY_IN else (0, e.amount)
                for key in (("owner", owner, day), ("participant", e.account_id, day)):
                    b, w = days.get(key, (0, 0))
                    days[key] = (b + buy_in, w + wager)
                row["bought_in"] += buy_in
                row["wager"] += wager
                if e.kind is TransferKind.COMMIT and e.hand_id:
                    hands[(sid, e.hand_id)] = None
            else:  # CASH_OUT (of 0: an empty session closed, no transfer)
                row["cashed_out"] += e.amount
                row["closed"] = True
        if days:
            await store.add_daily_many(conn, days)
        if hands:
            for sid, _ in await store.add_hands(conn, list(hands)):
                sessions[sid]["hands"] += 1
        if sessions:
            await store.add_sessions(conn, list(sessions.values()))
    return Counted(fresh, days, sessions)
