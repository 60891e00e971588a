"""Limits messages: ask before new risk, read caps and counters, set caps, freeze.

A refusal is an error reply (`felt_runtime.bus.call` raises `BusError`):
- `limit_exceeded` with details `limit`, `scope`, `scope_id`, `cap`, `used`, `amount`,
  `headroom` (what is still allowed; 0 when the cap is reached);
- `frozen` with details `scope`, `scope_id`, `reason`;
- `malformed` for bad input (unknown kind, amount missing/zero/negative/non-integer/huge).
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import Field, model_validator

from felt_contracts.base import Message, Request

#: The largest amount or cap a limits message may carry (far above any real stack).
MAX_AMOUNT = 10**12

Amount = Annotated[int, Field(strict=True, gt=0, le=MAX_AMOUNT)]
CapValue = Annotated[int, Field(strict=True, ge=0, le=MAX_AMOUNT)]
Id = Annotated[str, Field(min_length=1, max_length=200)]


class LimitName(StrEnum):
    DAILY_BUY_IN = "daily_buy_in"  # sum of buy-ins in the current UTC day
    DAILY_WAGER = "daily_wager"  # gross chips committed to hands in the current UTC day
    RESERVED_EXPOSURE = "reserved_exposure"  # chips reserved at tables in open sessions
    SESSION_HANDS = "session_hands"  # distinct hands played in one table session
    SESSION_WAGER = "session_wager"  # gross chips committed in one table session


class Scope(StrEnum):
    OWNER = "owner"  # the owner account (aggregates all its participants)
    PARTICIPANT = "participant"  # one participant (wallet account), e.g. one agent
    CREDENTIAL = "credential"  # one credential (an agent's API key, a login token) a participant acts with


class CheckKind(StrEnum):
    BUY_IN = "buy_in"  # amount = the buy-in; checks daily buy-in and reserved exposure
    #: session_id; checks session hands (+ wager caps if amount = forced bet); with `stack`, the
    #: decision grants the hand's allowance
    START_HAND = "start_hand"
    WAGER = "wager"  # amount = chips about to be committed; daily and session wager
    CONTINUE_SESSION = "continue_session"  # after settlement: deny = close the session, cash out


class LimitsCheck(Request):
    """Ask before new risk. Allowed: a `LimitsDecision`; denied: `limit_exceeded` / `frozen`."""

    kind: CheckKind
    owner_id: Id
    participant_id: Id | None = None  # the wallet account (participant) taking the risk
    #: the credential it acts with: its caps bind against the participant's counters (so a new
    #: credential never resets what was used), its freeze refuses at once
    credential_id: Id | None = None
    session_id: Id | None = None
    amount: Amount | None = None
    #: start_hand: the hand about to be dealt (a holding check holds it until limits counts it)
    hand_id: Id | None = None
    #: start_hand at a buy-in table: the seat's stack. The decision's `allowance` is what the seat
    #: may commit in the hand under every wager cap, at most this; a holding check holds it
    #: against those caps until the hand's settlement is counted.
    stack: CapValue | None = None
    #: the risk is about to be taken (the table sets it): an allowed `buy_in` / `wager` counts
    #: against the caps until the wallet's transfer is counted, so parallel checks cannot
    #: together pass a cap. False: a what-if question that changes nothing.
    hold: bool = False

    @model_validator(mode="after")
    def _needs(self) -> "LimitsCheck":
        if self.kind in (CheckKind.BUY_IN, CheckKind.WAGER) and self.amount is None:
            raise ValueError(f"kind {self.kind.value} needs an amount")
        if self.kind in (CheckKind.START_HAND, CheckKind.WAGER, CheckKind.CONTINUE_SESSION) and not self.session_id:
            raise ValueError(f"kind {self.kind.value} needs a session_id")
        return self


class LimitsDecision(Message):
    """An allowed check. `headroom`: per limit checked, the least `cap - used` over the scopes,
    now, before this request (None = no cap)."""

    allowed: bool = True
    kind: CheckKind
    headroom: dict[LimitName, int | None]
    #: start_hand with `stack`: the chips the seat may commit over the hand, forced bets
    #: included (the least of its stack and the daily and session wager headroom of every scope)
    allowance: int | None = None


class LimitsGet(Request):
    owner_id: Id
    participant_id: Id | None = None
    credential_id: Id | None = None
    session_id: Id | None = None


class CapState(Message):
    limit: LimitName
    cap: int | None  # in force now; None = no cap
    used: int
    headroom: int | None  # cap - used, floored at 0; None = no cap
    pending_cap: int | None = None  # a raise waiting for its cool-off (None with a time = "no cap")
    pending_effective_at: datetime | None = None  # None: no pending raise


class ScopeState(Message):
    scope: Scope
    scope_id: str
    frozen: bool
    frozen_reason: str = ""
    limits: dict[LimitName, CapState]


class SessionState(Message):
    session_id: str
    owner_id: str | None
    account_id: str | None
    hands: int
    wager: int
    bought_in: int
    cashed_out: int
    closed: bool
    reserved: int  # this session's share of reserved exposure


class LimitsState(Message):
    now: datetime
    day: date  # the UTC day the daily counters are for
    owner: ScopeState
    participant: ScopeState | None = None
    credential: ScopeState | None = None  # used = the participant's counters (the owner's without one)
    session: SessionState | None = None


class LimitsSetCap(Request):
    """Set one cap. Lowering (or equal) applies at once and drops any pending raise; raising
    (incl. `cap=None`, no cap) waits for the cool-off as a pending raise.

    `lower_only`: the caller may only lower (an agent's key, say the gateway): a raise over the
    cap in force is refused with `forbidden`, details `reason` = `raise_needs_owner`, `cap` (in
    force). Limits decides it in the transaction that writes the cap, so parallel requests are
    judged one after the other (no read-then-write race in the caller)."""

    scope: Scope = Scope.OWNER
    scope_id: Id
    limit: LimitName
    cap: CapValue | None
    lower_only: bool = False


class CapChange(Message):
    applied: bool  # True: in force now; False: pending until `state.pending_effective_at`
    state: CapState


class LimitsFreeze(Request):
    """Freeze (stop new risk at once) or unfreeze an owner or a participant.

    `freeze_only`: the caller may only freeze (an agent's key, say the gateway): an unfreeze is
    refused with `forbidden`, details `reason` = `unfreeze_needs_owner`, the counterpart of
    `LimitsSetCap.lower_only` (docs/limits.md)."""

    scope: Scope = Scope.OWNER
    scope_id: Id
    frozen: bool = True
    reason: str = Field(default="", max_length=500)
    freeze_only: bool = False


class FreezeState(Message):
    scope: Scope
    scope_id: str
    frozen: bool
    reason: str


class LimitsSessionEnd(Request):
    """The table closed a session without a cash-out (e.g. a stack of zero): its reserved
    exposure drops to 0. A cash-out event closes a session by itself."""

    session_id: Id


class SessionEnded(Message):
    session_id: str
    closed: bool
