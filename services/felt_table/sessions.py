"""A participant's session at a table: limits before new risk, the one-active-session
registry, auto-rebuy top-ups and closing the session (cash-out)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import CheckKind, LimitsCheck, LimitsDecision
from felt_runtime.bus import BusError
from felt_table.deps import Deps
from felt_table.recovery import retryable

if TYPE_CHECKING:
    from felt_table.table import Seat, Table

log = logging.getLogger("felt.table.sessions")


class Sessions:
    def __init__(self, table_id: str, deps: Deps) -> None:
        self.tid = table_id
        self.deps = deps

    async def _limits(self, check: LimitsCheck) -> None:
        """Raise BusError when limits deny (unavailable counts as deny for new risk)."""
        if self.deps.settings.limits:
            await self.deps.ask(subjects.LIMITS_CHECK, check, LimitsDecision)

    async def allow_buy_in(self, owner: str, pid: str, amount: int, key: str, credential: str | None) -> None:
        """`key`: the buy-in's own key (the join command's id), so a resent join counts once."""
        await self._limits(
            LimitsCheck(
                message_id=f"{self.tid}:{pid}:{key}"[:200],
                kind=CheckKind.BUY_IN,
                owner_id=owner,
                participant_id=pid,
                credential_id=credential,
                amount=amount,
                hold=True,
            )
        )

    async def allow_hand(self, s: Seat, hand_id: str, forced_bet: int = 0) -> None:
        """Before a deal; the seat's `forced_bet` in it (ante, blinds) also counts against the wager caps."""
        await self._limits(
            LimitsCheck(
                message_id=f"{hand_id}:{s.pid}:start",
                kind=CheckKind.START_HAND,
                owner_id=s.owner,
                participant_id=s.pid,
                credential_id=s.credential,
                session_id=s.limits_session,
                amount=forced_bet or None,
                hand_id=hand_id,
                hold=True,
            )
        )

    async def allow_wager(self, s: Seat, hand_id: str, n: int, amount: int) -> None:
        """Before a voluntary action commits chips (daily and session wager caps bind at every
        table; keyed by the hand's next commit, seat and amount, so a resent check counts once)."""
        await self._limits(
            LimitsCheck(
                message_id=f"{hand_id}:{n}:{s.pid}:{amount}:wager"[:200],
                kind=CheckKind.WAGER,
                owner_id=s.owner,
                participant_id=s.pid,
                credential_id=s.credential,
                session_id=s.limits_session,
                amount=amount,
                hold=True,
            )
        )

    async def allow_continue(self, hand_id: str, s: Seat) -> None:
        """After a settled hand (counted once per hand: the hand id keys the check)."""
        await self._limits(
            LimitsCheck(
                message_id=f"{hand_id}:{s.pid}:continue",
                kind=CheckKind.CONTINUE_SESSION,
                owner_id=s.owner,
                participant_id=s.pid,
                credential_id=s.credential,
                session_id=s.limits_session,
            )
        )

    @staticmethod
    async def refusals(checks: list[Awaitable[None]]) -> list[BusError | None]:
        """Run independent checks together (one round trip for the table, not one per seat);
        each seat's refusal or None, in order. Only `BusError`s are answers; anything else raises."""
        outcomes = await asyncio.gather(*checks, return_exceptions=True)
        for x in outcomes:
            if isinstance(x, BaseException) and not isinstance(x, BusError):
                raise x
        return [x if isinstance(x, BusError) else None for x in outcomes]

    async def claim(self, pid: str) -> str | None:
        """Claim the participant's one active session for this table; the other table that
        holds it (nothing claimed), or None."""
        return await self.deps.registry.claim(pid, self.tid)

    async def release(self, pid: str) -> None:
        await self.deps.registry.release(pid, self.tid)


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
