"""Timer messages: schedule/cancel deadlines, the fired event, the per-player time bank.

A deadline is identified by `(owner, key)`: scheduling again with the same pair REPLACES the
pending deadline (and gives it a new `deadline_id`); cancelling removes it. `payload` is opaque
to the timer and echoed back in `TimerFired`, so the owner can ignore a deadline whose turn is
over. Durations are relative and measured on the Redis server's clock.
"""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import Field, model_validator

from felt_contracts.base import ErrorInfo, Event, Message, Request

#: who asked (a NATS subject token): fired deadlines go to `subjects.timer_fired(owner)`
Owner = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")]
#: a deadline's key inside its owner, e.g. f"{table_id}:turn" (printable ASCII, no spaces)
DeadlineKey = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[!-~]+$")]
#: table and player ids as used in time-bank keys (printable ASCII, no spaces)
Ident = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[!-~]+$")]
Seconds = Annotated[float, Field(gt=0, le=86_400, allow_inf_nan=False)]
BankSeconds = Annotated[float, Field(ge=0, le=3_600, allow_inf_nan=False)]
PayloadValue = str | int | float | bool | None

MAX_PAYLOAD_BYTES = 4096


class DeadlineKind(StrEnum):
    TURN = "turn"  # 30 s (the ante room and Clawbet rules); the only kind that may use a time bank
    DISCONNECT = "disconnect"  # 10 s grace (the ante room rules)
    INTERMISSION = "intermission"  # 30 s between hands (the ante room rules)
    OTHER = "other"  # anything else: `delay_seconds` is required


#: the delay used when a request does not give `delay_seconds`
DEFAULT_DELAY_SECONDS: dict[DeadlineKind, float] = {
    DeadlineKind.TURN: 30.0,
    DeadlineKind.DISCONNECT: 10.0,
    DeadlineKind.INTERMISSION: 30.0,
}


class TimeBankPolicy(Message):
    """A table's time-bank rules. A table without a time bank (nlhe-1, ante-nl-1: the texts fix
    30 s) simply sends no `time_bank` with its turn deadlines."""

    initial_seconds: BankSeconds = 30.0  # a player's balance the first time the bank is used
    max_seconds: BankSeconds = 60.0  # refills never go above this
    refill_seconds: BankSeconds = 5.0  # added by each `RefillTimeBanks` (the table sends one per hand)

    @model_validator(mode="after")
    def _bounds(self) -> "TimeBankPolicy":
        if self.initial_seconds > self.max_seconds:
            raise ValueError("initial_seconds must not exceed max_seconds")
        return self


class TimeBankUse(Message):
    """Attach to a TURN deadline: when the turn clock expires and the player's bank at this table
    is above zero, the deadline is extended once by the whole balance (`TimeBankStarted`) instead
    of firing; the time actually used is deducted."""

    table_id: Ident
    player_id: Ident
    policy: TimeBankPolicy = TimeBankPolicy()


class ScheduleDeadline(Request):
    """Set (or replace) the deadline `(owner, key)` to fire `delay_seconds` from now."""

    owner: Owner
    key: DeadlineKey
    kind: DeadlineKind
    delay_seconds: Seconds | None = None  # None: DEFAULT_DELAY_SECONDS[kind]
    payload: dict[str, PayloadValue] = Field(default_factory=dict, max_length=32)
    time_bank: TimeBankUse | None = None

    @model_validator(mode="after")
    def _check(self) -> "ScheduleDeadline":
        if self.delay_seconds is None and self.kind not in DEFAULT_DELAY_SECONDS:
            raise ValueError(f"delay_seconds is required for kind {self.kind.value!r}")
        if self.time_bank is not None and self.kind is not DeadlineKind.TURN:
            raise ValueError("time_bank is only allowed on turn deadlines")
        if len(json.dumps(self.payload)) > MAX_PAYLOAD_BYTES:
            raise ValueError(f"payload larger than {MAX_PAYLOAD_BYTES} bytes")
        return self

    @property
    def delay(self) -> float:
        return self.delay_seconds if self.delay_seconds is not None else DEFAULT_DELAY_SECONDS[self.kind]


class DeadlineScheduled(Message):
    deadline_id: str  # new for every schedule; equals the TimerFired.event_id it will produce
    owner: str
    key: str
    due_at: datetime  # UTC, the plain turn clock (a time bank may extend it later)
    replaced: bool  # a pending deadline with the same key was replaced


#: most deadlines in one `ScheduleDeadlines`
MAX_SCHEDULE_BATCH = 256


class ScheduleDeadlines(Request):
    """Several `ScheduleDeadline`s in one request, applied in order (a later one with the same
    `(owner, key)` replaces an earlier one), each idempotent by its own `message_id`."""

    deadlines: tuple[ScheduleDeadline, ...] = Field(min_length=1, max_length=MAX_SCHEDULE_BATCH)


class ScheduleOutcome(Message):
    """One deadline's outcome in a batch: exactly one of `scheduled` and `error` is set."""

    scheduled: DeadlineScheduled | None = None
    error: ErrorInfo | None = None


class DeadlinesScheduled(Message):
    outcomes: tuple[ScheduleOutcome, ...]  # in the order of the request's deadlines


class CancelDeadline(Request):
    owner: Owner
    key: DeadlineKey


class DeadlineCancelled(Message):
    owner: str
    key: str
    cancelled: bool  # False: nothing was pending (already fired, cancelled or never set)
    time_bank_used_seconds: float = 0.0  # deducted when cancelled during a time-bank extension


class GetDeadline(Request):
    owner: Owner
    key: DeadlineKey


class DeadlineInfo(Message):
    owner: str
    key: str
    pending: bool
    deadline_id: str | None = None
    kind: DeadlineKind | None = None
    due_at: datetime | None = None  # current due time (extended while a time bank runs)
    in_time_bank: bool = False


class TimerFired(Event):
    """A deadline expired. `event_id` == `deadline_id` (stable across a rare redelivery)."""

    deadline_id: str
    owner: str
    key: str
    kind: DeadlineKind
    payload: dict[str, PayloadValue]
    due_at: datetime  # when it was due (the turn clock plus any time bank used)
    fired_at: datetime
    time_bank_used_seconds: float = 0.0
    attempt: int = 1  # >1 only when a replica died between claim and acknowledgement


class TimeBankStarted(Event):
    """The turn clock expired and the player's time bank now runs (published to
    `subjects.timer_bank_started(owner)`, so clients can show it)."""

    deadline_id: str
    owner: str
    key: str
    payload: dict[str, PayloadValue]
    table_id: str
    player_id: str
    bank_seconds: float  # the whole balance, granted as one extension
    turn_due_at: datetime  # the plain turn clock that expired
    due_at: datetime  # the new deadline


class RefillTimeBanks(Request):
    """Add `policy.refill_seconds` (capped at `policy.max_seconds`) to each player's bank at the
    table. Idempotent per `message_id`: send one per hand, e.g. message_id=f"{hand_id}:bank"."""

    table_id: Ident
    player_ids: list[Ident] = Field(min_length=1, max_length=20)
    policy: TimeBankPolicy = TimeBankPolicy()


class GetTimeBanks(Request):
    table_id: Ident
    player_ids: list[Ident] = Field(min_length=1, max_length=20)
    policy: TimeBankPolicy | None = None  # given: a player without a bank yet shows initial_seconds


class TimeBanks(Message):
    table_id: str
    seconds: dict[str, float]  # player id -> balance (players without a bank and no policy: 0)
