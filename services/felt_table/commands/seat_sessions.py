"""A seat's wallet session: auto-rebuy top-ups before a deal, whether an empty stack will be
refilled, and closing the session when the seat goes (cash-out)."""

from __future__ import annotations

import logging

from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError
from felt_table.model.table import Seat, Table
from felt_table.ports.retry import retryable

log = logging.getLogger("felt.table.sessions")


async def top_up(table: Table, seat: Seat, hand_id: str) -> None:
    """Auto-rebuy (before the deal of `hand_id`, whose id keys the buy-in): top the stack up to
    the maximum within the available balance. A wallet that does not answer is raised."""
    hi = table.config.max_buy_in or 0
    if not (table.rebuys(seat) and table.config.auto_rebuy) or seat.stack >= hi:
        return
    key = f"rebuy:{hand_id}"
    try:
        bal = await table.wallet.balance(seat.pid)
        amount = min(hi - seat.stack, bal.available)
        if amount <= 0:
            return
        await table.sessions.allow_buy_in(
            seat.owner, seat.pid, amount, key, seat.credential
        )  # a top-up is a buy-in: its caps apply
        res = await table.wallet.buy_in(seat.pid, amount, 0, hi, key)
        seat.stack, seat.session_id = res.reserved, res.session_id
        table.emit("rebuy", seat=seat.number, participant_id=seat.pid, amount=amount)
    except BusError as exc:
        if retryable(exc):
            raise
        log.info("auto-rebuy refused: %s", exc.message)
        if seat.stack == 0 and exc.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
            await close(table, seat, reason="limit")  # an empty seat the limits will not refill


async def can_rebuy(table: Table, seat: Seat) -> bool:
    """Will auto-rebuy refill this empty stack? Only with auto-rebuy on and a balance to take it
    from (a wallet that does not answer: assume so, the next deal asks again)."""
    if not (table.rebuys(seat) and table.config.auto_rebuy):
        return False
    try:
        return (await table.wallet.balance(seat.pid)).available > 0
    except BusError as exc:
        if retryable(exc):
            return True
        raise


async def close(table: Table, seat: Seat, *, reason: str) -> None:
    """Remove a seat between hands (or one not in the hand) and cash its stack out."""
    amount = await table.wallet.cash_out(seat.pid, seat.session_id) if seat.session_id is not None else 0
    table.seats.pop(seat.number, None)
    await table.sessions.release(seat.pid)
    await table.timers.cancel(f"grace:{seat.pid}")
    if seat.sitting_out:
        await table.timers.cancel(f"absent:{seat.pid}")
    table.emit(
        "session_closed" if reason in ("limit", "busted") else "left",
        seat=seat.number,
        participant_id=seat.pid,
        amount=amount,
        detail=reason,
    )
