"""Caps, headroom and the yes/no before new risk.

"At the cap" is allowed: a request is allowed when `used + amount <= cap` for every cap that
applies (owner's, and the participant's where one is set); one chip (or hand) more is denied.
Lowering a cap applies at once; raising one waits `raise_cooloff_seconds` as a pending raise.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from felt_runtime.idempotency import fingerprint
from felt_contracts.base import Request
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import (
    CapChange,
    CapState,
    CheckKind,
    FreezeState,
    LimitName,
    LimitsCheck,
    LimitsDecision,
    LimitsFreeze,
    LimitsGet,
    LimitsSessionEnd,
    LimitsSetCap,
    LimitsState,
    Scope,
    ScopeState,
    SessionEnded,
    SessionState,
)
from felt_contracts.wallet import TransferEvent, TransferKind
from felt_limits import store
from felt_limits.clock import Clock, utc
from felt_limits.counters import apply_events
from felt_limits.holds import Holds
from felt_limits.read_cache import ReadCache
from felt_limits.settings import LimitsSettings
from felt_runtime.bus import BusError
from felt_runtime.db import LoopReader

M = TypeVar("M", bound=BaseModel)  # a result model

log = logging.getLogger("felt.limits")

ORDER = list(LimitName)
SESSION_LIMITS = {LimitName.SESSION_HANDS, LimitName.SESSION_WAGER}
DAILY_LIMITS = {LimitName.DAILY_BUY_IN, LimitName.DAILY_WAGER}
Scope3 = tuple[Scope, str, tuple[Scope, str]]


@dataclass(frozen=True)
class Cap:
    value: int | None  # in force now; None = no cap
    pending: int | None = None
    pending_at: datetime | None = None


def _higher(new: int | None, current: int | None) -> bool:
    """Is `new` a raise over `current`? (None = no cap = the highest.)"""
    if new is None:
        return current is not None
    return current is not None and new > current


def effective(row: Any, default: int | None, now: datetime) -> Cap:
    """The cap in force at `now`: a pending raise counts from its effective instant on."""
    if row is None:
        return Cap(default)
    if row.pending_effective_at is not None:
        at = utc(row.pending_effective_at)
        if now >= at:
            return Cap(row.pending_cap)
        return Cap(None if row.cap is None else int(row.cap), row.pending_cap, at)
    return Cap(None if row.cap is None else int(row.cap))


def allowance(stack: int | None, headroom: dict[LimitName, int | None]) -> int | None:
    """What a seat with `stack` may commit in a hand: the least of its stack and every wager
    cap's headroom (None without a stack: no allowance asked)."""
    if stack is None:
        return None
    rooms = [
        room for limit in (LimitName.DAILY_WAGER, LimitName.SESSION_WAGER) if (room := headroom.get(limit)) is not None
    ]
    return min([stack, *rooms])


def _headroom(cap: int | None, used: int) -> int | None:
    return None if cap is None else max(0, cap - used)


@dataclass
class Usage:
    daily_buy_in: int
    daily_wager: int
    exposure: int
    session_hands: int
    session_wager: int

    def of(self, limit: LimitName) -> int:
        return {
            LimitName.DAILY_BUY_IN: self.daily_buy_in,
            LimitName.DAILY_WAGER: self.daily_wager,
            LimitName.RESERVED_EXPOSURE: self.exposure,
            LimitName.SESSION_HANDS: self.session_hands,
            LimitName.SESSION_WAGER: self.session_wager,
        }[limit]


class Limits:
    """The limits service's logic over its store, reading time from an injected clock."""

    def __init__(self, engine: AsyncEngine, clock: Clock, settings: LimitsSettings) -> None:
        self.engine = engine
        self.clock = clock
        self.settings = settings
        self.defaults = settings.defaults()
        self.holds = Holds(settings.hold_seconds, settings.hand_hold_seconds)
        self.cache = ReadCache()  # what checks read, kept in step with every write below
        # a check's rows: in the loop's thread on SQLite (felt_runtime.db.LoopReader)
        self.reader = LoopReader(engine, "the check's read")

    def close(self) -> None:
        self.reader.close()

    def today(self, now: datetime) -> date:
        return now.date()  # now is aware UTC: daily counters reset at 00:00 UTC

    # --- reading ----------------------------------------------------------------------------
    async def _caps(self, conn: AsyncConnection, scope: Scope, scope_id: str, now: datetime) -> dict[LimitName, Cap]:
        rows = await store.get_caps(conn, scope.value, scope_id)
        defaults = self.defaults if scope is Scope.OWNER else {}
        return {limit: effective(rows.get(limit.value), defaults.get(limit), now) for limit in ORDER}

    async def _usage(self, conn: AsyncConnection, scope: Scope, scope_id: str, day: date, session: Any) -> Usage:
        """`scope` here is a counter scope: owner or participant (see `_scopes`)."""
        buy_in, wager = await store.get_daily(conn, scope.value, scope_id, day)
        exposure = await store.get_exposure(conn, scope.value, scope_id)
        hands = int(session.hands) if session is not None else 0
        session_wager = int(session.wager) if session is not None else 0
        return Usage(buy_in, wager, exposure, hands, session_wager)

    @staticmethod
    def _scopes(owner_id: str, participant_id: str | None, credential_id: str | None = None) -> list[Scope3]:
        """Every policy that applies: (scope, its id, the counters it is checked against). A
        credential's caps bind against its participant's counters (the owner's without one)."""
        scopes = [(Scope.OWNER, owner_id, (Scope.OWNER, owner_id))]
        if participant_id:
            scopes.append((Scope.PARTICIPANT, participant_id, (Scope.PARTICIPANT, participant_id)))
        if credential_id:
            scopes.append((Scope.CREDENTIAL, credential_id, scopes[-1][2]))
        return scopes

    # --- check ------------------------------------------------------------------------------
    async def check(self, req: LimitsCheck) -> LimitsDecision:
        now = self.clock.now()
        day = self.today(now)
        wants: dict[LimitName, int]
        if req.kind is CheckKind.BUY_IN:
            assert req.amount is not None
            wants = {LimitName.DAILY_BUY_IN: req.amount, LimitName.RESERVED_EXPOSURE: req.amount}
        elif req.kind is CheckKind.WAGER:
            assert req.amount is not None
            wants = {LimitName.DAILY_WAGER: req.amount, LimitName.SESSION_WAGER: req.amount}
        elif req.kind is CheckKind.START_HAND:
            wants = {LimitName.SESSION_HANDS: 1}
            if req.amount is not None or req.stack is not None:  # the forced bet the hand will take
                forced = req.amount or 0
                wants |= {LimitName.DAILY_WAGER: forced, LimitName.SESSION_WAGER: forced}
        else:  # CONTINUE_SESSION: another hand is possible only below both session caps
            wants = {LimitName.SESSION_HANDS: 1, LimitName.SESSION_WAGER: 1}
        if not req.hold:
            return await self._check(req, now, day, wants)
        async with self.holds.lock(req.owner_id):  # the holding checks of one owner, one at a time (holds.py)
            decision = await self._check(req, now, day, wants)
            if req.kind is CheckKind.START_HAND and req.hand_id:
                if decision.allowance is not None:  # the whole allowance is held, not just the forced bet
                    allowance = decision.allowance
                    wants |= {LimitName.DAILY_WAGER: allowance, LimitName.SESSION_WAGER: allowance}
                self.holds.add_hand(
                    req.owner_id, req.participant_id, req.session_id, req.hand_id, wants, long=req.stack is not None
                )
            else:
                self.holds.add(req.kind, req.owner_id, req.participant_id, req.session_id, req.amount, wants)
            return decision

    async def _check(self, req: LimitsCheck, now: datetime, day: date, wants: dict[LimitName, int]) -> LimitsDecision:
        headroom: dict[LimitName, int | None] = {limit: None for limit in wants}
        scopes = self._scopes(req.owner_id, req.participant_id, req.credential_id)
        # holds before any counter is read: a transfer counted meanwhile is then seen twice
        # (safe), never not at all (its hold is released only after its counters are committed);
        # a scope is held on the counters it is measured by (a credential: its participant's)
        held = {
            (c, i, limit): self.holds.held(c, i, limit, req.session_id, req.hand_id)
            for _, _, (c, i) in scopes
            for limit in wants
        }
        keys = [(scope.value, scope_id) for scope, scope_id, _ in scopes]
        counted = list(dict.fromkeys((c.value, i) for _, _, (c, i) in scopes))
        shape = (  # only what this kind needs
            keys,
            counted,
            day if DAILY_LIMITS & wants.keys() else None,
            req.session_id if req.session_id and SESSION_LIMITS & wants.keys() else None,
            LimitName.RESERVED_EXPOSURE in wants,
        )
        reads = self.cache.reads(*shape)
        if reads is None:  # one statement, kept if no write overlapped it
            generation = self.cache.generation
            statement, params = store.check_query(*shape)
            reads = store.check_reads(keys, await self.reader.all(statement, params))
            self.cache.learn(generation, *shape, reads)
        for scope, scope_id, _ in scopes:
            if (scope.value, scope_id) in reads.frozen:
                raise BusError(
                    ErrorCode.FROZEN,
                    f"{scope.value} {scope_id} is frozen",
                    scope=scope.value,
                    scope_id=scope_id,
                    reason=reads.frozen[(scope.value, scope_id)],
                )
        hands, session_wager = reads.session or (0, 0)
        for scope, scope_id, (c, i) in scopes:
            defaults = self.defaults if scope is Scope.OWNER else {}
            caps = {
                limit: effective(reads.caps[(scope.value, scope_id)].get(limit.value), defaults.get(limit), now)
                for limit in wants
            }
            buy_in, wager = reads.daily.get((c.value, i), (0, 0))
            usage = Usage(buy_in, wager, reads.exposure.get((c.value, i), 0), hands, session_wager)
            for limit, amount in wants.items():
                cap = caps[limit].value
                used = usage.of(limit) + held[c, i, limit]
                room = _headroom(cap, used)
                if cap is not None and used + amount > cap:
                    raise BusError(
                        ErrorCode.LIMIT_EXCEEDED,
                        f"{limit.value} limit of {scope.value} {scope_id} reached",
                        limit=limit.value,
                        scope=scope.value,
                        scope_id=scope_id,
                        cap=cap,
                        used=used,
                        amount=amount,
                        headroom=room,
                    )
                if room is not None and ((least := headroom[limit]) is None or room < least):
                    headroom[limit] = room
        return LimitsDecision(kind=req.kind, headroom=headroom, allowance=allowance(req.stack, headroom))

    # --- state ------------------------------------------------------------------------------
    async def _scope_state(self, conn: AsyncConnection, scope3: Scope3, now: datetime, session: Any) -> ScopeState:
        scope, scope_id, counted = scope3
        caps = await self._caps(conn, scope, scope_id, now)
        usage = await self._usage(conn, *counted, self.today(now), session)
        frozen, reason = await store.get_freeze(conn, scope.value, scope_id)
        return ScopeState(
            scope=scope,
            scope_id=scope_id,
            frozen=frozen,
            frozen_reason=reason,
            limits={limit: self._cap_state(limit, caps[limit], usage.of(limit)) for limit in ORDER},
        )

    @staticmethod
    def _cap_state(limit: LimitName, cap: Cap, used: int) -> CapState:
        return CapState(
            limit=limit,
            cap=cap.value,
            used=used,
            headroom=_headroom(cap.value, used),
            pending_cap=cap.pending,
            pending_effective_at=cap.pending_at,
        )

    async def get(self, req: LimitsGet) -> LimitsState:
        now = self.clock.now()
        async with self.engine.connect() as conn:
            session = await store.get_session(conn, req.session_id) if req.session_id else None
            states = {
                s3[0]: await self._scope_state(conn, s3, now, session)
                for s3 in self._scopes(req.owner_id, req.participant_id, req.credential_id)
            }
        session_state = None
        if req.session_id:
            s = session
            session_state = SessionState(
                session_id=req.session_id,
                owner_id=s.owner_id if s else None,
                account_id=s.account_id if s else None,
                hands=int(s.hands) if s else 0,
                wager=int(s.wager) if s else 0,
                bought_in=int(s.bought_in) if s else 0,
                cashed_out=int(s.cashed_out) if s else 0,
                closed=bool(s.closed) if s else False,
                reserved=0 if (s is None or s.closed) else max(0, int(s.bought_in) - int(s.cashed_out)),
            )
        return LimitsState(
            now=now,
            day=self.today(now),
            owner=states[Scope.OWNER],
            participant=states.get(Scope.PARTICIPANT),
            credential=states.get(Scope.CREDENTIAL),
            session=session_state,
        )

    # --- commands (idempotent on message_id) ------------------------------------------------
    async def _once(self, conn: AsyncConnection, subject: str, req: Request, model: type[M]) -> M | None:
        prior = await store.get_request(conn, req.message_id)
        if prior is None:
            return None
        if prior.fingerprint != fingerprint(req, subject):
            raise BusError(ErrorCode.CONFLICT, "message_id reused with different content", message_id=req.message_id)
        return model.model_validate_json(prior.result)

    async def _remember(self, conn: AsyncConnection, subject: str, req: Request, result: BaseModel) -> None:
        await store.put_request(conn, req.message_id, fingerprint(req, subject), result.model_dump_json())

    async def set_cap(self, req: LimitsSetCap, subject: str) -> CapChange:
        now = self.clock.now()
        defaults = self.defaults if req.scope is Scope.OWNER else {}
        with self.cache.writing():
            async with self.engine.begin() as conn:
                # decided with the write: a `lower_only` caller cannot raise between a read and a write
                await store.lock_cap(conn, req.scope.value, req.scope_id, req.limit.value, defaults.get(req.limit), now)
                if (prior := await self._once(conn, subject, req, CapChange)) is not None:
                    return prior
                rows = await store.get_caps(conn, req.scope.value, req.scope_id)
                current = effective(rows.get(req.limit.value), defaults.get(req.limit), now).value
                if req.lower_only and _higher(req.cap, current):
                    raise BusError(  # rolls the transaction back
                        ErrorCode.FORBIDDEN,
                        "an agent may lower caps; raising one needs the owner's login token",
                        reason="raise_needs_owner",
                        limit=req.limit.value,
                        cap=current,
                    )
                cooloff = timedelta(seconds=self.settings.raise_cooloff_seconds)
                if _higher(req.cap, current) and cooloff > timedelta(0):
                    at = now + cooloff
                    await store.put_cap(conn, req.scope.value, req.scope_id, req.limit.value, current, req.cap, at, now)
                    cap, applied = Cap(current, req.cap, at), False
                else:  # lower, equal, or no cool-off configured: in force now, any pending raise dropped
                    await store.put_cap(conn, req.scope.value, req.scope_id, req.limit.value, req.cap, None, None, now)
                    cap, applied = Cap(req.cap), True
                # a credential has no counters of its own: its `used` shows in LIMITS_GET (with its participant)
                usage = await self._usage(conn, req.scope, req.scope_id, self.today(now), None)
                result = CapChange(applied=applied, state=self._cap_state(req.limit, cap, usage.of(req.limit)))
                await self._remember(conn, subject, req, result)
            self.cache.scope_changed(req.scope.value, req.scope_id)
        return result

    async def freeze(self, req: LimitsFreeze, subject: str) -> FreezeState:
        if req.freeze_only and not req.frozen:
            raise BusError(
                ErrorCode.FORBIDDEN,
                "unfreezing needs the owner's login token",
                reason="unfreeze_needs_owner",
                scope=req.scope.value,
            )
        now = self.clock.now()
        with self.cache.writing():
            async with self.engine.begin() as conn:
                if (prior := await self._once(conn, subject, req, FreezeState)) is not None:
                    return prior
                await store.put_freeze(conn, req.scope.value, req.scope_id, req.frozen, req.reason, now)
                result = FreezeState(scope=req.scope, scope_id=req.scope_id, frozen=req.frozen, reason=req.reason)
                await self._remember(conn, subject, req, result)
            self.cache.scope_changed(req.scope.value, req.scope_id)
        return result

    async def end_session(self, req: LimitsSessionEnd, subject: str) -> SessionEnded:
        with self.cache.writing():
            async with self.engine.begin() as conn:
                if (prior := await self._once(conn, subject, req, SessionEnded)) is not None:
                    return prior
                await store.close_session(conn, req.session_id)
                result = SessionEnded(session_id=req.session_id, closed=True)
                await self._remember(conn, subject, req, result)
            self.cache.session_closed(req.session_id)
        return result

    # --- counters -----------------------------------------------------------------------------
    async def count(self, events: list[TransferEvent]) -> list[TransferEvent]:
        """Apply a batch of wallet transfers to the counters (counters.apply_events; raising:
        nothing applied), then to the cache, then release the holds they no longer need (in
        that order: a check never misses what a hold stood for); the events that were new."""
        with self.cache.writing():
            batch = await apply_events(self.engine, self.clock, events)
            self.cache.counted(batch)
        for event in batch.fresh:
            # a tournament buy-in is what a `buy_in` check allowed (it holds as a buy-in)
            kind = TransferKind.BUY_IN if event.kind is TransferKind.POOL_ENTRY else event.kind
            self.holds.counted(kind, event.account_id, event.amount)
            if event.kind is TransferKind.COMMIT and event.hand_id:
                self.holds.hand_counted(event.account_id, event.hand_id)
        return batch.fresh
