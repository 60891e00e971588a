"""A participant's session at a table as limits and the session registry see it: the limits
checks before new risk, and the one-active-session claim."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Protocol, TypeVar

from felt_contracts import subjects
from felt_contracts.limits import CheckKind, LimitsCheck, LimitsDecision
from felt_runtime.bus import BusError
from felt_table.ports.deps import Deps

T = TypeVar("T")


class Seated(Protocol):
    """What a limits check names of a seated participant (the table's `Seat`)."""

    @property
    def pid(self) -> str: ...
    @property
    def owner(self) -> str: ...
    @property
    def credential(self) -> str | None: ...
    @property
    def limits_session(self) -> str | None: ...


class Sessions:
    def __init__(self, table_id: str, deps: Deps, *, asks_limits: bool = True) -> None:
        self.tid = table_id
        self.deps = deps
        #: a tournament table asks none: its chips are not paper chips, and its buy-in was checked
        self.asks_limits = asks_limits

    async def _limits(self, check: LimitsCheck) -> LimitsDecision | None:
        """Raise BusError when limits deny (unavailable counts as deny for new risk); None when
        the table asks no limits."""
        if self.deps.settings.limits and self.asks_limits:
            return await self.deps.ask(subjects.LIMITS_CHECK, check, LimitsDecision)
        return None

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

    async def allow_hand(self, seat: Seated, hand_id: str, forced_bet: int = 0, stack: int | None = None) -> int | None:
        """Before a deal; the seat's `forced_bet` in it (ante, blinds) also counts against the wager
        caps. With the seat's `stack` (buy-in tables): the hand's allowance, what the seat may
        commit in it under every wager cap (None: no bound but the stack)."""
        decision = await self._limits(
            LimitsCheck(
                message_id=f"{hand_id}:{seat.pid}:start",
                kind=CheckKind.START_HAND,
                owner_id=seat.owner,
                participant_id=seat.pid,
                credential_id=seat.credential,
                session_id=seat.limits_session,
                amount=forced_bet or None,
                hand_id=hand_id,
                stack=stack,
                hold=True,
            )
        )
        return None if decision is None else decision.allowance

    async def allow_wager(self, seat: Seated, hand_id: str, commit_seq: int, amount: int) -> None:
        """Before a voluntary action commits chips where the balance plays (`ante-nl-1`; at buy-in
        tables the hand's allowance bounds the actions instead); keyed by the hand's next commit,
        seat and amount, so a resent check counts once."""
        await self._limits(
            LimitsCheck(
                message_id=f"{hand_id}:{commit_seq}:{seat.pid}:{amount}:wager"[:200],
                kind=CheckKind.WAGER,
                owner_id=seat.owner,
                participant_id=seat.pid,
                credential_id=seat.credential,
                session_id=seat.limits_session,
                amount=amount,
                hold=True,
            )
        )

    async def allow_continue(self, hand_id: str, seat: Seated) -> None:
        """After a settled hand (counted once per hand: the hand id keys the check)."""
        await self._limits(
            LimitsCheck(
                message_id=f"{hand_id}:{seat.pid}:continue",
                kind=CheckKind.CONTINUE_SESSION,
                owner_id=seat.owner,
                participant_id=seat.pid,
                credential_id=seat.credential,
                session_id=seat.limits_session,
            )
        )

    @staticmethod
    async def answers(checks: list[Awaitable[T]]) -> list[T | BusError]:
        """Run independent checks together (one round trip for the table, not one per seat);
        each seat's answer or refusal, in order. Only `BusError`s are answers; anything else raises."""
        outcomes = await asyncio.gather(*checks, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, BusError):
                raise outcome
        return outcomes  # type: ignore[return-value]  # every exception left is a BusError

    @classmethod
    async def refusals(cls, checks: list[Awaitable[None]]) -> list[BusError | None]:
        """Each seat's refusal or None, in order (see `answers`)."""
        return [outcome if isinstance(outcome, BusError) else None for outcome in await cls.answers(checks)]

    async def claim(self, pid: str) -> str | None:
        """Claim the participant's one active session for this table; the other table that
        holds it (nothing claimed), or None."""
        return await self.deps.registry.claim(pid, self.tid)

    async def release(self, pid: str) -> None:
        await self.deps.registry.release(pid, self.tid)
