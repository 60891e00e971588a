"""A seat's wallet session: auto-rebuy top-ups before a deal, whether an empty stack will be
refilled, and closing the session when the seat goes (cash-out)."""

from __future__ import annotations

import logging

from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError
from felt_table.model.table import Seat, Table
from felt_table.ports.retry import retryable

log = logging.getLogger("felt.table.sessions")


async def top_up(t: Table, s: Seat, hand_id: str) -> None:
    """Auto-rebuy (before the deal of `hand_id`, whose id keys the buy-in): top the stack up to
    the maximum within the available balance. A wallet that does not answer is raised."""
    hi = t.config.max_buy_in or 0
    if not (s.auto_rebuy and t.config.auto_rebuy) or s.stack >= hi:
        return
    key = f"rebuy:{hand_id}"
    try:
        bal = await t.wallet.balance(s.pid)
        amount = min(hi - s.stack, bal.available)
        if amount <= 0:
            return
        await t.sessions.allow_buy_in(s.owner, s.pid, amount, key, s.credential)  # a top-up is a buy-in: its caps apply
        res = await t.wallet.buy_in(s.pid, amount, 0, hi, key)
        s.stack, s.session_id = res.reserved, res.session_id
        t.emit("rebuy", seat=s.seat, participant_id=s.pid, amount=amount)
    except BusError as exc:
        if retryable(exc):
            raise
        log.info("auto-rebuy refused: %s", exc.message)
        if s.stack == 0 and exc.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
            await close(t, s, reason="limit")  # an empty seat the limits will not refill


async def can_rebuy(t: Table, s: Seat) -> bool:
    """Will auto-rebuy refill this empty stack? Only with auto-rebuy on and a balance to take it
    from (a wallet that does not answer: assume so, the next deal asks again)."""
    if not (s.auto_rebuy and t.config.auto_rebuy):
        return False
    try:
        return (await t.wallet.balance(s.pid)).available > 0
    except BusError as exc:
        if retryable(exc):
            return True
        raise


async def close(t: Table, s: Seat, *, reason: str) -> None:
    """Remove a seat between hands (or one not in the hand) and cash its stack out."""
    amount = await t.wallet.cash_out(s.pid, s.session_id) if s.session_id is not None else 0
    t.seats.pop(s.seat, None)
    await t.sessions.release(s.pid)
    await t.timers.cancel(f"grace:{s.pid}")
    if s.sitting_out:
        await t.timers.cancel(f"absent:{s.pid}")
    t.emit(
        "session_closed" if reason in ("limit", "busted") else "left",
        seat=s.seat,
        participant_id=s.pid,
        amount=amount,
        detail=reason,
    )
