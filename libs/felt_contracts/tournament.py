"""Tournament messages: definitions, registrations, the tournament view and its list.

Subjects (felt_contracts.subjects):
- `TOURNAMENT_CREATE` (operators): `CreateTournament` -> `TournamentView`. A definition the
  tournament service refuses: `malformed`, `details.field` names the field at fault (e.g.
  `levels[2].big_blind`) and `details.reason` says what is wrong (stable strings, below).
- `TOURNAMENT_LIST`: `ListTournaments` -> `TournamentList`; `TOURNAMENT_GET`: `GetTournament` ->
  `TournamentView`.
- `TOURNAMENT_CANCEL` (operators): `CancelTournament` -> `TournamentView`: every entry refunded
  exactly once.
- `TOURNAMENT_REGISTER` / `TOURNAMENT_UNREGISTER`: `Register` / `Unregister` -> `Registration`.

Refusals of a registration: `already_registered`, `not_registered`, `tournament_full`,
`registration_closed` (details `status`), `tournament_started` (unregistering once it started),
and what the limits service (`limit_exceeded`, `frozen`) or the wallet (`insufficient_funds`)
refused. A refused registration changes nothing.

Chips: the buy-in is paper chips (the wallet's), moved into the tournament's prize pool; the
starting stack is tournament chips, which never reach a balance. docs/tournaments.md states the
rules.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from felt_contracts.base import Message, Request

#: a tournament id: lower-case letters, digits, `_` and `-` (it names tables and a prize pool)
TOURNAMENT_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,47}$"
TournamentId = Annotated[str, Field(pattern=TOURNAMENT_ID_PATTERN)]
Id = Annotated[str, Field(min_length=1, max_length=200)]
Chips = Annotated[int, Field(strict=True, ge=0, le=10**12)]
#: the games a tournament may be: the blind hold'em profiles of the engine
TournamentGame = Literal["nlhe-1", "plhe-1", "flhe-1"]
#: a prize share in percent, to two decimals (e.g. 33.33); on the wire a JSON number
Percent = Annotated[
    Decimal,
    Field(gt=0, le=100, max_digits=5, decimal_places=2),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": 100, "multipleOf": 0.01}),
]

#: `details.reason` of a refused definition (stable; clients branch on them)
DefinitionReason = Literal[
    "bad_level",
    "levels_out_of_order",
    "no_play_level",
    "seats_outside_profile",
    "entrants_out_of_order",
    "payouts_not_100",
    "payouts_out_of_order",
    "payouts_uncovered",
    "too_many_places",
    "late_registration_past_levels",
    "starts_in_past",
    "starts_at_without_offset",
    "re_entry_without_late_registration",
    "turn_clock_fixed",
]


class Level(Message):
    """One level of the blind schedule. A break is a level without play: no blinds, no ante."""

    small_blind: Chips = 0
    big_blind: Chips = 0
    ante: Chips = 0
    #: who pays the ante: `each` dealt player, or the `big_blind` for the table (big-blind ante)
    ante_mode: Literal["each", "big_blind"] = "each"
    duration_seconds: Annotated[int, Field(strict=True, ge=1, le=24 * 3600)]
    is_break: bool = False


class PayoutTier(Message):
    """The prizes when at least `min_entrants` entered (up to the next tier's `min_entrants`):
    `percents[i]` of the prize pool to place i + 1. They sum to 100."""

    min_entrants: Annotated[int, Field(strict=True, ge=2, le=10_000)]
    percents: list[Percent] = Field(min_length=1, max_length=1000)


class TournamentDefinition(Message):
    """What an operator creates. `starts_at` None: a Sit & Go, which starts once `max_entrants`
    registered; otherwise it starts at `starts_at` with at least `min_entrants` (fewer: it is
    cancelled and every entry refunded)."""

    tournament_id: TournamentId
    name: Annotated[str, Field(max_length=100)] = ""
    rules_version: TournamentGame = "nlhe-1"
    buy_in: Chips = 0  # paper chips; 0 = a freeroll
    starting_chips: Annotated[int, Field(strict=True, ge=1, le=10**9)]
    levels: list[Level] = Field(min_length=1, max_length=200)
    seats_per_table: Annotated[int, Field(strict=True)] = 9
    min_entrants: Annotated[int, Field(strict=True, ge=2, le=10_000)] = 2
    max_entrants: Annotated[int, Field(strict=True, ge=2, le=10_000)]
    payouts: list[PayoutTier] = Field(min_length=1, max_length=100)
    starts_at: datetime | None = None
    #: registration stays open through this level (1-based; 0: closes at the start)
    late_registration_level: Annotated[int, Field(strict=True, ge=0, le=200)] = 0
    #: entries a player may buy after busting, while late registration is open (0: no re-entry)
    re_entries: Annotated[int, Field(strict=True, ge=0, le=100)] = 0
    #: the tables' turn clock in seconds (None: the table service's own)
    turn_seconds: Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)] | None = None


TournamentStatus = Literal["registering", "running", "paying", "finished", "cancelling", "cancelled"]
#: `refunded`: the tournament was cancelled and the buy-in given back
EntryStatus = Literal["registering", "registered", "unregistering", "unregistered", "refunded"]


class Entrant(Message):
    account_id: str
    entry_id: str
    status: EntryStatus
    place: int | None = None
    prize: int = 0
    busted: bool = False  # eliminated (its place is given when the tournament ends)
    table_id: str | None = None  # the table it plays at (None: busted, or not playing)


class TournamentView(Message):
    definition: TournamentDefinition
    status: TournamentStatus
    entrants: int  # registered entries (a re-entry counts again)
    prize_pool: int  # paper chips: buy_in x entries
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    entries: list[Entrant] = Field(default_factory=list)
    #: while it plays: the level (1-based) and when it ends, its tables, the entries still in
    level: int = 0
    level_ends_at: datetime | None = None
    tables: list[str] = Field(default_factory=list)
    players_left: int = 0


class TournamentList(Message):
    tournaments: list[TournamentView]


class Registration(Message):
    tournament_id: str
    account_id: str
    entry_id: str
    status: EntryStatus
    entrants: int
    prize_pool: int


# --- requests ---------------------------------------------------------------------------------


class CreateTournament(Request):
    """On `TOURNAMENT_CREATE` (operators): `conflict` if the id exists with another definition;
    the same definition again returns the tournament."""

    definition: TournamentDefinition


class ListTournaments(Request):
    """On `TOURNAMENT_LIST`: every tournament, or those in `status` (without their entries)."""

    status: list[TournamentStatus] | None = None


class GetTournament(Request):
    tournament_id: TournamentId


class CancelTournament(Request):
    """On `TOURNAMENT_CANCEL` (operators): a tournament that has not started is cancelled and
    every entry refunded exactly once (asking again returns the cancelled tournament)."""

    tournament_id: TournamentId


class Register(Request):
    """On `TOURNAMENT_REGISTER`: enter `account_id` (the authenticated participant, set by the
    gateway) with the buy-in from its available chips. Retrying after no answer finishes the
    same registration; the buy-in moves at most once."""

    tournament_id: TournamentId
    account_id: Id
    owner_id: Id
    credential_id: Id | None = None
    #: who sits down at the tournament's table (set by the gateway, like `account_id`)
    kind: Literal["agent", "human"] = "agent"
    name: Annotated[str, Field(max_length=50)] = ""


class Unregister(Request):
    """On `TOURNAMENT_UNREGISTER`: before the start, leave and get the buy-in back."""

    tournament_id: TournamentId
    account_id: Id
