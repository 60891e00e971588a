"""Typed shapes of the agent API's answers, camelCase on the wire. Each names the OpenAPI schema
it reads (`SCHEMA`); the room's tests check every field here against that schema, so a field
renamed or removed on the server fails there. Unknown fields are kept (the server may add some)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Answer(BaseModel):
    """camelCase on the wire; unknown fields kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")
    #: the OpenAPI component this model reads
    SCHEMA: ClassVar[str] = ""


class AgentKey(Answer):
    SCHEMA = "AgentKey"
    participant_id: str
    name: str
    api_key: str


class Bounds(Answer):
    SCHEMA = "Bounds"
    min: int
    max: int


class LegalActions(Answer):
    """`legalActions`: None / False = unavailable; `call`/`allIn` are chips to add now,
    `bet`/`raiseTo` bounds total street commitments."""

    SCHEMA = "LegalActions"
    fold: bool = False
    check: bool = False
    call: int | None = None
    bet: Bounds | None = None
    raise_to: Bounds | None = None
    all_in: int | None = None
    draw: Bounds | None = None
    bet_add: Bounds | None = None


class HandSeat(Answer):
    SCHEMA = "HandSeat"
    seat: int
    participant_id: str | None = None
    stack: int
    bet: int
    committed: int
    folded: bool
    all_in: bool
    cards: list[str] | None = None


class Hand(Answer):
    """`table.hand`: whose turn (`actorSeatId`), the turn's id, your cards and legal actions."""

    SCHEMA = "HandView"
    hand_id: str
    rules_version: str
    street: str
    board: list[str]
    pot: int
    to_match: int
    actor_seat_id: int | None = None
    turn_id: int
    deadline: datetime | None = None
    seats: list[HandSeat]
    hole_cards: list[str] | None = None
    legal_actions: LegalActions | None = None
    preaction: str | None = None
    preactions_available: list[str] | None = None


class TableView(Answer):
    """`GET /tables/{id}`'s `table`, as you may see it."""

    SCHEMA = "TableView"
    table_id: str
    rules_version: str
    config: dict[str, Any]
    seq: int
    your_seat_id: int | None = None
    auto_rebuy: bool | None = None
    can_show: bool = False
    hand: Hand | None = None
    hands_played: int = 0
    closed: bool = False


class Event(Answer):
    """One numbered table event (`kind`: seated, hand_start, turn, call, hand_end, ...)."""

    SCHEMA = "TableEvent"
    table_id: str
    seq: int
    kind: str
    private: bool = False
    hand_id: str | None = None
    at: datetime
    seat: int | None = None
    participant_id: str | None = None
    amount: int = 0
    cards: list[str] = Field(default_factory=list)
    turn: dict[str, Any] | None = None


class Balance(Answer):
    SCHEMA = "Balance"
    account_id: str
    available: int
    reserved: int = 0
    in_play: int = 0
    reserves: dict[str, int] = Field(default_factory=dict)


class CommandResult(Answer):
    """join/start/leave/actions/...: `status` (join: seated|waiting, leave: left|leaving, ...)."""

    SCHEMA = "CommandOut"
    status: str
    seq: int
    seat: int | None = None
    buy_in: int | None = None
    table: dict[str, Any] | None = None
    replayed: bool = False


class EventPage(Answer):
    """A long-poll answer: ask again with `after=last_seq`."""

    SCHEMA = "EventsOut"
    table_id: str
    after: int
    last_seq: int
    events: list[dict[str, Any]]


class Page(Answer):
    """A page of a list: `next` is the cursor of the page after it (None: the last)."""

    next: str | None = None
    ITEMS: ClassVar[str] = ""

    def items(self) -> list[dict[str, Any]]:
        return getattr(self, self.ITEMS)


class HandPage(Page):
    SCHEMA, ITEMS = "HandsOut", "hands"
    hands: list[dict[str, Any]]


class SessionPage(Page):
    SCHEMA, ITEMS = "SessionHistory", "sessions"
    sessions: list[dict[str, Any]]


class LeaderboardPage(Page):
    SCHEMA, ITEMS = "LeaderboardOut", "entries"
    entries: list[dict[str, Any]]


#: every model whose fields the room's tests check against its OpenAPI schema
CHECKED: tuple[type[Answer], ...] = (
    AgentKey,
    Bounds,
    LegalActions,
    HandSeat,
    Hand,
    TableView,
    Event,
    Balance,
    CommandResult,
    EventPage,
    HandPage,
    SessionPage,
    LeaderboardPage,
)
