"""Table messages: the lobby, every command a player (through the gateway) sends to a table,
the per-viewer snapshot, the numbered table events and the hand history.

Subjects (felt_contracts.subjects):
- `TABLE_LIST` (request/reply): `ListTables` -> `TableList`.
- `TABLE_CREATE` (request/reply, operators): `CreateTable` -> `TableSummary` (a bad config:
  `malformed`, `details.field` names the field at fault).
- `TABLE_CLOSE` (request/reply, operators): `CloseTable` -> `TableSummary`.
- Hosted tables (a player created them through the gateway: `TableConfig.host_id`): the host's
  controls are the `Host` table command; a private table is reached only with the hash of its
  invite code (`invite_hash`, the one form of a code the table service ever sees or keeps).
- `table_command(table_id)` (request/reply): `TableRequest` (one of the commands below in
  `command`, discriminated by `type`) -> `TableResult`. Every command of a table goes through
  that table's one ordered queue (the actor).
- `table_public_events(table_id)`: `TableEvent` with `private=False` (never private cards).
- `table_seat_events(table_id, participant_id)`: `TableEvent` with `private=True`: the same
  numbered event as that participant may see it (own hole cards, own draw, the legal actions
  on their turn, their pre-action). A private event carries the `seq` of the public event it
  belongs to, or a `seq` of its own for private-only events (`preaction`): a client keeps the
  highest `seq` seen on either subject and fills gaps with `GetEvents`.
- `PRIVATE_COPY` (a NATS header on both copies of a seq that has a public and a private copy):
  the participant who gets the private copy, and reads it instead of the public one. The table
  sets it (felt_table/ports/events.py); a reader routes on it without knowing event kinds. A private
  copy without it is private-only (no public copy of that seq exists).

Identity: `participant_id` is the authenticated participant (also its wallet account id);
the gateway sets it from the credentials, never from the client's body. `owner_id` and
`kind` come from authentication too (admission).

Amounts follow the table's profile: `bet`/`raiseTo` are total street commitments (nlhe-1,
draw5-1, plhe-1); in `ante-nl-1` use `hit` (check/call) and `bet` = chips to add now.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from felt_contracts.base import Cursor, Event, Message, Request
from felt_contracts.ladder import MatchTerms
from felt_contracts.names import ActionName, EventKind, OperationKind, Phase, PreActionName
from felt_contracts.timer import TimeBankPolicy

#: table ids are NATS subject tokens: the one definition of their form (`is_table_id`; the
#: pattern's `$` is the end of the text for pydantic, but Python's `re.match` lets it stand
#: before a final newline, so Python code uses `fullmatch`: "3\n" is no table id)
TABLE_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
TABLE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
HAND_NONCE = re.compile(r"[0-9a-f]{16}")
#: the header naming the participant with a private copy of this seq (see the module docstring)
PRIVATE_COPY = "Felt-Private-Copy"


def invite_hash(code: str) -> str:
    """The form an invite code is kept and compared in (the code itself is never stored)."""
    return hashlib.sha256(code.encode()).hexdigest()


def is_table_id(text: str) -> bool:
    return TABLE_ID.fullmatch(text) is not None


def hand_id_for(table_id: str, nonce: str) -> str:
    """A hand's id names its table: `<table_id>-<16 hex digits>` (the table draws the digits)."""
    if not HAND_NONCE.fullmatch(nonce):
        raise ValueError("a hand id's nonce is 16 hex digits")
    return f"{table_id}-{nonce}"


def table_of_hand(hand_id: str) -> str | None:
    """The table a hand id names, or None for an id of another form."""
    head, sep, tail = hand_id.rpartition("-")
    return head if sep and is_table_id(head) and HAND_NONCE.fullmatch(tail) else None


#: lenient on the bus: the table service names a bad id in its own error (`details.field`)
TableId = Annotated[str, Field(min_length=1, max_length=64)]
#: strict where a client names a table (WebSocket frames)
WellFormedTableId = Annotated[str, Field(pattern=TABLE_ID_PATTERN)]
PARTICIPANT_ID_MAX_LENGTH = 200
ParticipantId = Annotated[str, Field(min_length=1, max_length=PARTICIPANT_ID_MAX_LENGTH)]
Chips = Annotated[int, Field(strict=True, ge=0, le=10**12)]
PositiveChips = Annotated[int, Field(strict=True, gt=0, le=10**12)]
Seconds = Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)]
Card = Annotated[str, Field(max_length=2)]  # "As", "Td" (checked by the table service)


class Admission(StrEnum):
    AGENTS_ONLY = "AGENTS_ONLY"
    HUMANS_ONLY = "HUMANS_ONLY"
    MIXED = "MIXED"


class ParticipantKind(StrEnum):
    AGENT = "agent"
    HUMAN = "human"


class StartMode(StrEnum):
    EXPLICIT = "explicit"  # a seated participant starts the hand when >= 2 eligible players are ready
    AUTO = "auto"  # dealt automatically after the intermission


class Visibility(StrEnum):
    PUBLIC = "public"  # listed in the lobby
    PRIVATE = "private"  # not listed; reached with its invite code (or by its host and those seated)


#: who pays the ante: each dealt player, the big blind for the table, or the button for the table
AnteMode = Literal["each", "big_blind", "button"]


class TableConfig(Message):
    """A table's configuration (lobby data). `rules_version` names the engine profile. The table
    service checks it (id `[a-z0-9][a-z0-9_-]{0,63}`, stakes against the profile, 2..10 seats,
    positive durations) and refuses a bad one with `malformed`."""

    table_id: str
    name: str = ""
    rules_version: str  # nlhe-1, plhe-1, flhe-1, ante-nl-1, draw5-1
    structure: Literal["no-limit", "pot-limit", "fixed-limit"] | None = None  # None: the profile's default
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    # who pays `ante` (felt_engine.forced): `each` dealt player, the `big_blind` for the whole
    # table (big-blind ante) or the `button` (button ante); a table ante is dead money in the
    # main pot. Not `each` needs an ante and a profile that allows it (hold'em with blinds).
    ante_mode: AnteMode = "each"
    # a live straddle of two big blinds by the player left of the big blind (3+ players dealt;
    # no straddle heads-up); nlhe-1 and plhe-1 only
    straddle: bool = False
    min_buy_in: int | None = None  # None for profiles where the account balance plays (ante-nl-1)
    max_buy_in: int | None = None
    seats: int = 9  # 2..10 within the profile (checked by the table service)
    admission: Admission = Admission.MIXED
    start_mode: StartMode = StartMode.EXPLICIT
    auto_rebuy: bool = False  # the table allows auto-rebuy (the five-card draw rules)
    turn_seconds: float | None = None  # None: the service setting
    intermission_seconds: float | None = None
    # a per-player time bank (extra seconds used only when the turn clock expires, refilled once
    # per hand); None: off. Refused for nlhe-1 and ante-nl-1, whose texts fix the 30 s turn clock.
    time_bank: TimeBankPolicy | None = None
    # a room limited by hands or time (the Texas Hold'em rules): after `max_hands` settled hands, or once
    # `closes_at` (UTC) has passed, the hand in progress finishes, every seat is cashed out,
    # `table_closed` is published and joins are refused (`table_closed`). None: no limit.
    max_hands: Annotated[int, Field(ge=1, le=10**9)] | None = None
    closes_at: datetime | None = None
    # a benchmark match's table (felt_contracts.ladder): its two players only, deals in mirrored
    # pairs, every stack topped up to the maximum buy-in and playing no more than it
    match: MatchTerms | None = None
    # a hosted table (docs/rules.md "Hosting a table"): the participant who created it and their
    # owner (whose open hosted tables are bounded); None: a house table
    host_id: str | None = None
    host_owner: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    approval: bool = False  # the host accepts or declines each request to sit
    # a tournament table: the stacks are that tournament's chips (each seat's wallet account is
    # `wallet.chips_account(chips, participant)`), and no limits are asked (its buy-in was); None:
    # paper chips
    chips: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,47}$")] | None = None
    # a tournament table: the tournament's level (1-based) its blinds and ante are, written in its
    # hands' histories; the host's `blinds` control sets it with them
    level: Annotated[int, Field(ge=1)] | None = None


#: a seat in the lobby and the table view: in the hand, waiting for the next, sat out, or on its way out
SeatStatus = Literal["playing", "waiting", "sitting_out", "leaving"]


class SeatSummary(Message):
    seat: int
    participant_id: str
    kind: ParticipantKind
    name: str = ""
    stack: int  # table stack (ante-nl-1: the account's available balance when last read)
    status: SeatStatus
    ready: bool = False
    connected: bool = True
    sitting_out: bool = False  # not dealt in from the next hand on (also while the status is `playing`/`leaving`)


class TableSummary(Message):
    config: TableConfig
    players: int
    hand_running: bool
    hand_id: str | None = None
    last_seq: int = 0
    hands_played: int = 0  # settled hands (what `config.max_hands` counts)
    closed: bool = False  # closed for good: no seats, no hands, joins refused
    paused: bool = False  # its host paused dealing
    hands_left: int | None = None  # `config.max_hands` less the hands played (None: no hand limit)


# --- lobby ------------------------------------------------------------------------------------


class ListTables(Request):
    """On `TABLE_LIST`: every table this service owns."""

    kind: ParticipantKind | None = None  # given: only tables admitting this kind
    #: private tables are never listed; given, only the (private or public) table this invite opens
    invite_hash: str | None = None
    host_id: str | None = None  # given: the open tables this participant hosts (private ones too)


class TableList(Message):
    tables: list[TableSummary]


class CreateTable(Request):
    """On `TABLE_CREATE` (operators; the gateway for players): create a table; conflict if the id
    exists. A hosted table (`config.host_id`) counts against its owner's bound on open hosted
    tables (`too_many_tables`); a private one needs `invite_hash`."""

    config: TableConfig
    invite_hash: str | None = None


class CloseTable(Request):
    """On `TABLE_CLOSE` (operators): close a table after the hand in progress (every seat cashed
    out, `table_closed` published, joins refused); `not_found` for an unknown id."""

    table_id: TableId


# --- commands (inside TableRequest.command, discriminated by `type`) ------------------------


class ParticipantCommand(Message):
    """A command a participant sends: `type` (a literal in each command) and who sends it.
    Subclasses only narrow `type`, so every command keeps `type`, `participant_id` first."""

    type: str
    participant_id: ParticipantId
    #: the credential the gateway authenticated it with (set by the gateway, like `participant_id`):
    #: that credential's limits policy applies to the seat's new risk from then on
    credential_id: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class Join(ParticipantCommand):
    """Take a server-assigned seat. Buy-in tables reserve `buy_in` through the wallet (after
    limits allow it); ante-nl-1 takes no buy-in (the balance plays). During a hand the new
    player waits until the next deal. One participant per owner per table; one active table
    session per participant."""

    type: Literal["join"] = "join"
    owner_id: ParticipantId
    kind: ParticipantKind
    name: Annotated[str, Field(max_length=50)] = ""
    # None: the largest amount in the table's range the balance covers (ignored for ante-nl-1)
    buy_in: PositiveChips | None = None
    auto_rebuy: bool = False  # only where the table allows it
    invite_hash: str | None = None  # a private table: its invite code's hash (not needed by its host)
    seat: Annotated[int, Field(ge=1, le=10)] | None = None  # this seat (a tournament's draw); None: the first free


class Ready(ParticipantCommand):
    """Explicit-start tables: say you are ready (or not) for the next hand."""

    type: Literal["ready"] = "ready"
    ready: bool = True


class Start(ParticipantCommand):
    """Explicit-start tables: a seated participant starts the hand (marks them ready too).
    Refused (`conflict`, details.reason=`not_enough_ready`) unless >= 2 eligible players are ready."""

    type: Literal["start"] = "start"


class Act(ParticipantCommand):
    """Act on your turn. `bet`/`raiseTo` need `amount`; `draw` takes `cards` to discard (none =
    stand pat); the others take nothing. ante-nl-1: `hit` (check/call), `bet` = chips to add now. `hand_id`/`turn_id`/`seat`, when given, must match the current turn
    (a stale client gets `hand_closed` / `stale_turn` / `forbidden` and nothing changes).
    `with_view`: the reply carries the actor's table view (REST returns it); a WebSocket client
    follows the table by its events, so the gateway asks for none (a view per action was about
    8% of the table service's CPU at 100 tables)."""

    type: Literal["act"] = "act"
    action: ActionName
    amount: PositiveChips | None = None  # bet/raiseTo only (ante-nl-1 bet: chips to add now)
    cards: Annotated[tuple[Card, ...], Field(max_length=5)] = ()  # draw only: the cards to discard
    hand_id: Annotated[str, Field(max_length=200)] | None = None
    turn_id: Annotated[int, Field(ge=0)] | None = None
    seat: Annotated[int, Field(ge=0, le=20)] | None = None
    with_view: bool = True


class SetPreAction(ParticipantCommand):
    """The five-card draw rules' checkboxes for the current hand: check_fold, fold, call_any, raise_any (None clears)."""

    type: Literal["preaction"] = "preaction"
    preaction: PreActionName | None


class SetAutoRebuy(ParticipantCommand):
    """Switch your auto-rebuy on or off while seated (on: only where `TableConfig.auto_rebuy`,
    else `forbidden` with details.reason `auto_rebuy_not_allowed`)."""

    type: Literal["auto_rebuy"] = "auto_rebuy"
    enabled: bool


class SitOut(ParticipantCommand):
    """Stop being dealt in (from the next hand); keep the seat."""

    type: Literal["sit_out"] = "sit_out"


class SitIn(ParticipantCommand):
    """Return from sitting out."""

    type: Literal["sit_in"] = "sit_in"


class Leave(ParticipantCommand):
    """Leave the table. Mid-hand the profile's policy applies (nlhe-1: check/fold queued on
    your turns; ante-nl-1: immediate fold); the stack is cashed out once the hand settles."""

    type: Literal["leave"] = "leave"


class Disconnect(ParticipantCommand):
    """The gateway lost the participant's last connection: the grace deadline starts."""

    type: Literal["disconnect"] = "disconnect"


class Reconnect(ParticipantCommand):
    type: Literal["reconnect"] = "reconnect"


class Show(ParticipantCommand):
    """After the hand: show your cards voluntarily (the Texas Hold'em rules' "authorized voluntary reveal"), to
    everyone. `hand_id`, when given, must be the last hand (a later deal ended that chance:
    `hand_closed`). Refused with `illegal_action` (details.reason `hand_running` or
    `nothing_to_show`) unless `TableView.can_show`."""

    type: Literal["show"] = "show"
    hand_id: Annotated[str, Field(max_length=200)] | None = None


HostControl = Literal[
    "pause",
    "resume",
    "hold",
    "go",
    "blinds",
    "approve",
    "decline",
    "remove",
    "close",
    "invite",
    "revoke",
    "bot_pass",
    "remove_bot",
    "unseat",
]


class Host(ParticipantCommand):
    """A host's control of a hosted table (`not_host` from anyone else). Each takes effect between
    hands: sent while a hand runs, it is queued and applied when that hand ends, and the result's
    `status` says `now` or `next_hand`. `participant` names whom approve/decline/remove mean;
    `blinds` takes `small_blind`/`big_blind` (and `ante` and `ante_mode`; None keeps it; and a
    tournament's `level`, `TableConfig.level`); `invite` takes the new
    code's `invite_hash` (the old code stops working, removed players may be invited again);
    `bot_pass` takes the hash of a code that seats one Felt bot (no invite, no approval needed);
    `remove_bot` unseats a bot that came with a pass (banned from the table, its owner is not);
    `unseat` cashes `participant` out like a leave without banning them (a tournament moving a
    player with their chips to another table, where they join with `Join.seat`); `hold`: from the
    end of the hand in progress the table deals only on the host's `go`, one hand per go (a
    tournament deciding between hands never races the next deal; `go` at a table not held is
    `conflict`)."""

    type: Literal["host"] = "host"
    control: HostControl
    participant: ParticipantId | None = None
    small_blind: Chips | None = None
    big_blind: Chips | None = None
    ante: Chips | None = None
    ante_mode: AnteMode | None = None
    level: Annotated[int, Field(ge=1)] | None = None
    invite_hash: str | None = None


class GetView(Message):
    """The current snapshot as `viewer` may see it (None: spectator). A private table is shown
    only to its host, those seated or asking to sit, and with its `invite_hash` (else `not_found`)."""

    type: Literal["view"] = "view"
    viewer: ParticipantId | None = None
    invite_hash: str | None = None


class GetEvents(Message):
    """Events with `seq > after_seq`, as `viewer` may see them (fill gaps after a reconnect)."""

    type: Literal["events"] = "events"
    after_seq: Annotated[int, Field(ge=0)] = 0
    viewer: ParticipantId | None = None
    limit: Annotated[int, Field(ge=1, le=5000)] = 500


class GetHand(Message):
    """One finished hand as `viewer` may see it; `format="phh"` also fills `HandHistory.phh`."""

    type: Literal["hand"] = "hand"
    hand_id: str = Field(min_length=1, max_length=200)
    viewer: ParticipantId | None = None
    format: Literal["json", "phh"] = "json"


class ListHands(Message):
    """Finished hands of this table, newest first (by end, then hand id), a page of `limit` past
    `after` (optionally only those `participant_id` played)."""

    type: Literal["hands"] = "hands"
    participant_id: ParticipantId | None = None
    limit: Annotated[int, Field(ge=1, le=500)] = 50
    after: Cursor | None = None


TableCommand = Annotated[
    Join
    | Ready
    | Start
    | Act
    | SetPreAction
    | SetAutoRebuy
    | SitOut
    | SitIn
    | Leave
    | Disconnect
    | Reconnect
    | Show
    | Host
    | GetView
    | GetEvents
    | GetHand
    | ListHands,
    Field(discriminator="type"),
]


class TableRequest(Request):
    """On `table_command(table_id)`: one command for one table."""

    table_id: TableId
    command: TableCommand


# --- views ------------------------------------------------------------------------------------


class Bounds(Message):
    min: int
    max: int


class LegalActions(Message):
    """The Clawbet rules' `legalActions`: None / False = unavailable. `call`/`all_in` are chips to add now;
    `bet`/`raise_to` bounds are total street commitments; `draw` = discards allowed;
    `bet_add` (ante-nl-1 only, add-now convention): the `bet N` amounts that bet or raise."""

    fold: bool = False
    check: bool = False
    call: int | None = None
    bet: Bounds | None = None
    raise_to: Bounds | None = None
    all_in: int | None = None
    draw: Bounds | None = None
    bet_add: Bounds | None = None


class HandSeat(Message):
    seat: int
    participant_id: str | None = None
    stack: int
    bet: int
    committed: int
    folded: bool
    all_in: bool
    card_count: int
    cards: list[str] | None = None  # only your own, or revealed ones
    shown: bool = False
    leaving: bool = False
    payout: int | None = None
    hand_name: str | None = None  # a revealed hand's name once it has five cards ("Flush, Ace High")


class PotView(Message):
    """One pot in the middle (main pot first) and the seats still able to win it."""

    amount: int
    eligible: tuple[int, ...]


class HandView(Message):
    """The Clawbet rules' `table.hand`: `actor_seat_id` = actorSeatId, `legal_actions` = legalActions
    (yours, on your turn; None otherwise), `hole_cards` = your cards."""

    hand_id: str
    rules_version: str
    structure: str
    street: str
    phase: Phase
    button: int
    small_blind_seat: int | None = None
    big_blind_seat: int | None = None
    board: list[str]
    pot: int
    pots: tuple[PotView, ...] = ()  # what `pot` holds apart from the bets in front: main pot, then side pots
    to_match: int
    actor_seat_id: int | None = None
    turn_id: int
    deadline: datetime | None = None  # the current turn's deadline
    seats: list[HandSeat]
    hole_cards: list[str] | None = None
    legal_actions: LegalActions | None = None
    preaction: str | None = None
    preactions_available: list[str] | None = None  # the pre-actions you may set now (seated players)
    showdown: bool | None = None
    time_bank_seconds: float | None = None  # the acting player's time bank (None: the table has none)
    in_time_bank: bool = False  # the turn clock expired and the actor's bank runs (`deadline` extended)


class SeatRequest(Message):
    """A request to sit at an approval table, waiting for the host."""

    participant_id: str
    name: str = ""
    kind: ParticipantKind


class HostView(Message):
    """What only the host sees of a hosted table (never anyone's cards)."""

    paused: bool
    pending_requests: tuple[SeatRequest, ...] = ()
    invite: bool = False  # an invite code works (the code itself is shown only when made)
    removed: tuple[str, ...] = ()  # participants removed (they may not sit again until a new invite)
    bots: tuple[str, ...] = ()  # the Felt bots the host added (by their passes)


class TableView(Message):
    """The Clawbet rules' `table`: `your_seat_id` = yourSeatId (None: not seated / spectator). For a
    seated viewer also: `auto_rebuy` (yours; `config.auto_rebuy` says whether the table allows
    it) and `can_show` (you may show your cards of the finished `hand` now)."""

    table_id: str
    rules_version: str
    config: TableConfig
    seq: int  # the last event number this view includes
    your_seat_id: int | None = None
    auto_rebuy: bool | None = None  # yours (None: not seated)
    can_show: bool = False
    seats: tuple[SeatSummary, ...] = ()
    hand: HandView | None = None
    next_hand_at: datetime | None = None  # auto-start tables: end of the intermission
    hands_played: int = 0  # settled hands (what `config.max_hands` counts)
    closed: bool = False  # the table closed (its limit, or an operator): joins are refused
    paused: str | None = None  # e.g. "waiting for the wallet" or "paused by the host": no hand is dealt meanwhile
    host_id: str | None = None  # a hosted table's host
    hands_left: int | None = None  # `config.max_hands` less the hands played (None: no hand limit)
    closes_at: datetime | None = None  # a time-limited table's end (`config.closes_at`)
    host: HostView | None = None  # the host's own controls' state (the host's view only)


# --- events -----------------------------------------------------------------------------------


class BlindsChange(Message):
    """The forced bets a host set, from hand number `from_hand` of the table on."""

    small_blind: int
    big_blind: int
    ante: int
    ante_mode: AnteMode = "each"
    from_hand: int


class TurnInfo(Message):
    """Carried by every event that starts a turn."""

    hand_id: str
    turn_id: int
    seat: int
    participant_id: str | None = None
    deadline: datetime | None = None
    legal_actions: LegalActions
    time_bank_seconds: float | None = None  # the actor's time bank (None: the table has none)


class TableEvent(Event):
    """One numbered table event. `kind` (`names.EventKind`) is one of:
    table: seated, waiting, ready, sit_out, sit_in, left, disconnected, reconnected, rebuy,
      auto_rebuy, session_closed, table_reset, table_closed, hand_cancelled, leaving,
      paused / resumed (`detail`: "waiting for the wallet" / "the wallet answers"),
      stack_reconciled (a stack set to the wallet's reserve `amount`; `detail`: what it was);
    hosted tables: table_paused, table_resumed, table_held, table_go, blinds_changed (`blinds`), seat_requested
      (`participant_id`, `name`), seat_approved, seat_declined, player_removed (`participant_id`);
    hand (engine operations, same names): hand_start, post_ante, post_blind, deal_hole,
      deal_board, street, fold, check, call, bet, raise, draw, show, award, hand_end;
    turn (a turn starts: `turn` is set); time_bank (the actor's turn clock expired and their
      bank runs: `turn` is set again with the extended `deadline` and the bank granted);
    preaction (private only).
    `cards` of `deal_hole`/`draw` are set only in the owner's private copy."""

    table_id: str
    seq: int
    kind: EventKind
    private: bool = False
    hand_id: str | None = None
    at: datetime
    seat: int | None = None
    participant_id: str | None = None
    amount: int = 0
    to: int | None = None
    cards: tuple[str, ...] = ()
    discarded: tuple[str, ...] = ()
    street: str | None = None
    all_in: bool = False
    pot: int | None = None
    detail: str = ""
    turn: TurnInfo | None = None
    stacks: dict[str, int] | None = None  # seat (as text) -> stack, on hand_start/hand_end
    name: str | None = None  # seat_requested: who asks
    blinds: BlindsChange | None = None  # blinds_changed


#: `TableEvent` kinds that change who sits at a table (chat follows them for its membership):
#: a participant sat down (`seated`; `waiting` during a hand), stood up for good (`left`; a
#: session the table closed: `session_closed`), or every seat emptied (a restart's
#: `table_reset`, `table_closed`)
SEAT_TAKEN = frozenset({"seated", "waiting"})
SEAT_FREED = frozenset({"left", "session_closed"})
SEATS_EMPTIED = frozenset({"table_reset", "table_closed"})
#: every kind that changes who sits where: the table also publishes them to the seat-changes
#: stream (`subjects.table_seat_changes`) and has them stored there before it answers the command
#: that made them, so chat's membership follows the answer
SEAT_CHANGES = SEAT_TAKEN | SEAT_FREED | SEATS_EMPTIED
#: kinds after which a seated player may have something to do that is not a turn (ready up for the
#: next hand at an explicit-start table, show, top up, leave): a long-poll with `wake=mine`
#: returns on them as on the caller's own private copies
HAND_BOUNDARIES = frozenset({"hand_end", "hand_cancelled"}) | SEATS_EMPTIED


# --- hand history -----------------------------------------------------------------------------


class HandSummary(Message):
    hand_id: str
    table_id: str
    rules_version: str
    status: Literal["settled", "cancelled"]
    started_at: datetime
    ended_at: datetime
    seats: dict[str, str]  # seat (as text) -> participant_id
    pot: int
    showdown: bool = False


class HandOperation(Message):
    kind: OperationKind
    seat: int | None = None
    amount: int = 0
    to: int | None = None
    cards: tuple[str, ...] = ()
    discarded: tuple[str, ...] = ()
    street: str | None = None
    all_in: bool = False
    pot: int | None = None
    detail: str = ""


class TournamentHand(Message):
    """A tournament table's hand: the tournament (`TableConfig.chips`) and the level it was played
    at (`TableConfig.level`; None if the tournament named none) with its forced bets."""

    tournament_id: str
    level: int | None = None
    small_blind: int
    big_blind: int
    ante: int


class HandHistory(Message):
    summary: HandSummary
    button: int
    starting_stacks: dict[str, int]  # seat -> chips
    final_stacks: dict[str, int]
    board: list[str]
    operations: list[HandOperation]  # redacted for the viewer
    phh: str | None = None  # PHH (TOML) text, redacted for the viewer, when format="phh"
    tournament: TournamentHand | None = None  # a tournament table's hand (PHH: `event`, `level`)


# --- the one result --------------------------------------------------------------------------


class TableResult(Message):
    """The reply to every `TableRequest`. `seq` is the table's last event number after the
    command. Commands fill what they produce: `seat` and `buy_in` (join), `status` (join:
    seated|waiting; start: started, or ready while a hand runs (dealt in from the next one); leave: left|leaving; others: ok), `view`, `events`, `hands`, `hand`."""

    table_id: str
    seq: int
    status: str = "ok"
    seat: int | None = None
    buy_in: int | None = None  # join: the chips brought to the table (None where the balance plays)
    view: TableView | None = None
    events: tuple[TableEvent, ...] = ()
    hands: tuple[HandSummary, ...] = ()
    next: str | None = None  # `hands`: the cursor of the next page, if any
    hand: HandHistory | None = None
    #: the outcome a command's `message_id` had the first time (the table applies it once): its
    #: status, seq, seat and buy-in, with the view as it is at the resend
    replayed: bool = False
