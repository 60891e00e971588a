"""REST shapes: camelCase JSON per the Clawbet rules. Request bodies and the gateway's own envelopes are
defined here; every bus model a response carries (table view, events, balance, limits...) is
its contract model's camelCase twin (`twin`), so felt_contracts stays the one definition."""

from __future__ import annotations

import copy as _copy
import functools
import types
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, StrictBool, create_model, model_validator
from pydantic.alias_generators import to_camel

from felt_contracts.chat import ChatMessage, ChatPosted
from felt_contracts.names import ActionName, PreActionName
from felt_contracts.limits import CapChange, FreezeState, LimitName, LimitsState, Scope
from felt_contracts.table import (
    Admission,
    AnteMode,
    HandHistory,
    HandSummary,
    TableConfig,
    TableEvent,
    TableView,
    Visibility,
)
from felt_contracts.wallet import Balance, Refilled, RefillState, SessionHistory
from felt_engine.actions import shape_problem


@functools.cache
def _camel_fields(model: type[BaseModel]) -> tuple[tuple[str, str, bool], ...]:
    """(field, camelCase name, whether its values are JSON-ready as they are) of a model, worked
    out once per model class: `to_camel`'s regular expressions were a tenth of the gateway's CPU
    when run for every field of every event, and walking every scalar of a table view (most of
    its fields) through `camel` was most of what was left."""
    return tuple((name, to_camel(name), _as_is(f.annotation)) for name, f in model.model_fields.items())


_SCALARS = (int, str, bool, float, types.NoneType)


def _as_is(annotation: Any) -> bool:
    """Whether every value of this type is JSON-ready as it is: plain scalars, literals of them,
    and unions or constrained forms of those (no model, container, datetime or enum)."""
    if annotation in _SCALARS:
        return True
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return all(type(a) in _SCALARS for a in args)
    if origin in (Union, types.UnionType):
        return all(_as_is(a) for a in args)
    if origin is Annotated:
        return _as_is(args[0])
    return False


def camel(value: Any) -> Any:
    """A bus model (or anything inside one) as camelCase JSON-ready data, exactly as its
    `twin` writes it: for frames and feeds sent outside a response model, and for parts of an
    envelope the gateway assembles (a route that answers one contract model returns it and
    FastAPI writes it through the twin). Only model field names change; dict keys (seat
    numbers, table ids) stay as they are."""
    if isinstance(value, BaseModel):
        return {
            key: v if as_is else camel(v)
            for name, key, as_is in _camel_fields(type(value))
            for v in (getattr(value, name),)
        }
    if isinstance(value, dict):
        return {str(k.value if isinstance(k, Enum) else k): camel(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [camel(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


#: datetimes as `camel` writes them (`isoformat()`: `+00:00`, not pydantic's `Z`)
IsoDatetime = Annotated[datetime, PlainSerializer(lambda v: v.isoformat(), return_type=str, when_used="json")]


def _twin_type(annotation: Any) -> Any:
    """`annotation` with every bus model in it replaced by its twin (unions, containers,
    `Annotated` keep their shape and constraints)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return twin(annotation)
    if annotation is datetime:
        return IsoDatetime
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is None or origin is Literal or not args:
        return annotation
    if origin is Annotated:
        return Annotated[(_twin_type(args[0]), *annotation.__metadata__)]
    mapped = tuple(a if a is Ellipsis else _twin_type(a) for a in args)
    if origin in (Union, types.UnionType):
        return Union[mapped]
    return origin[mapped if len(mapped) > 1 else mapped[0]]


@functools.cache
def twin(model: type[BaseModel]) -> type[BaseModel]:
    """The camelCase response model of a bus model: the same fields, types and defaults, JSON
    names camel-cased (snake_case accepted when validating), nested bus models twinned too —
    exactly the JSON `camel` writes, now described in the OpenAPI document."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        copy = _copy.copy(info)
        copy.annotation = _twin_type(info.annotation)
        fields[name] = (copy.annotation, copy)
    return create_model(
        model.__name__,
        __config__=ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid"),
        __doc__=model.__doc__,
        __module__=__name__,
        **fields,
    )


class Body(BaseModel):
    """A request body: camelCase names (snake_case accepted too), unknown fields refused."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class Out(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


Email = Annotated[
    str,
    Field(min_length=3, max_length=254, pattern=r"^[^@\s\x00-\x1f\x7f]+@[^@\s\x00-\x1f\x7f]+\.[^@\s\x00-\x1f\x7f]+$"),
]
Password = Annotated[str, Field(min_length=8, max_length=256)]
Chips = Annotated[int, Field(strict=True, gt=0, le=10**12)]
#: an invite code as the gateway makes them (`secrets.token_urlsafe`)
InviteCode = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


# --- accounts ---------------------------------------------------------------------------------


class SignUpBody(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"email": "player@example.org", "password": "correct horse battery", "screenName": "Ada"}]
        }
    )

    email: Email
    password: Password
    screen_name: Annotated[
        str | None,
        Field(
            max_length=200,
            description="the public name others see (3-20 letters, digits, and single ' ', '_', '-' or '.' "
            "between them; unique; never your email or part of it). Omitted: a generated `Player-NNNNNN`",
        ),
    ] = None


class NameBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "Ada"}]})

    name: Annotated[str, Field(max_length=200, description="a person's screen name, or an agent's name")]


class NameOut(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"participantId": "3f2a9c1e0b7d4e8a", "name": "Ada"}]})

    participant_id: str
    name: str


class LoginBody(Body):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"email": "ada@example.org", "password": "correct horse battery"}]}
    )

    email: Annotated[str, Field(min_length=1, max_length=254, pattern=r"^[^\x00-\x1f\x7f]+$")]
    password: Annotated[str, Field(min_length=1, max_length=256)]


class SignedUp(Out):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"ownerId": "9b1d4c7e2a6f3d80", "participantId": "3f2a9c1e0b7d4e8a", "screenName": "Ada"}]
        }
    )

    owner_id: str
    participant_id: str  # the owner's HUMAN participant
    screen_name: str  # chosen, or generated when the sign-up named none


class LoggedIn(Out):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "token": "felt_t_…",
                    "tokenType": "bearer",
                    "expiresAt": "2030-01-01T00:00:00Z",
                    "ownerId": "9b1d4c7e2a6f3d80",
                    "participantId": "3f2a9c1e0b7d4e8a",
                }
            ]
        }
    )

    token: str
    token_type: Literal["bearer"] = "bearer"
    expires_at: datetime
    owner_id: str
    participant_id: str


class ParticipantOut(Out):
    participant_id: str
    kind: Literal["HUMAN", "AGENT"]
    name: str
    created_at: datetime
    api_key_prefix: str | None = None  # agents: the visible start of the live key (None: revoked)


class Me(Out):
    owner_id: str
    participant_id: str
    kind: Literal["HUMAN", "AGENT"]
    name: str
    participants: list[ParticipantOut]


class AgentBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "my-bot"}]})

    name: Annotated[str, Field(min_length=1, max_length=50, pattern=r"^[^\x00-\x1f\x7f]+$")]


class AgentKey(Out):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"participantId": "5c8e1f2a7b3d9e04", "name": "my-bot", "kind": "AGENT", "apiKey": "felt_ak_…"}
            ]
        }
    )

    participant_id: str
    name: str
    kind: Literal["AGENT"] = "AGENT"
    api_key: str = Field(description="shown once; only its hash is stored")


class Revoked(Out):
    model_config = ConfigDict(json_schema_extra={"examples": [{"participantId": "5c8e1f2a7b3d9e04", "revoked": 1}]})

    participant_id: str
    revoked: int


# --- poker -----------------------------------------------------------------------------------


class RulesOut(Out):
    rules_version: str
    protocol: str = "/api/v2/poker"
    format: Literal["markdown"] = "markdown"
    available: list[str]
    text: str


class GameOut(Out):
    """What a host may choose at a table of one rules profile (felt_engine.profiles)."""

    rules_version: str
    structures: list[str]  # allowed betting structures; the first is the default
    blinds: bool  # small and big blind posted (False: antes only)
    ante: Literal["optional", "required"]
    fixed_ante: int | None  # the ante the profile fixes (None: the table chooses)
    min_seats: int
    max_seats: int
    money: Literal["buy_in", "balance"]  # `balance`: the account's balance plays, no buy-in
    buy_in_unit: Literal["big_blind", "ante", "none"]
    min_buy_in_units: int | None  # buy-in bounds in `buyInUnit`
    max_buy_in_units: int | None
    fixed_turn_seconds: int | None  # the turn clock the rules fix (None: the table chooses)
    ante_modes: list[str]
    straddle: bool


class GamesOut(Out):
    games: list[GameOut]


class JoinBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"buyIn": 100}, {}]})

    buy_in: Chips | None = Field(
        default=None,
        description="chips to bring; None: the largest amount in the table's range your balance covers (ignored for ante-nl-1)",
    )
    auto_rebuy: bool = False
    invite_code: InviteCode | None = Field(
        default=None, description="a private table's invite code (not needed by its host)"
    )


ActionType = ActionName
CardText = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$")]


def check_action_shape(type: str, amount: int | None, cards: list[str]) -> None:
    """The engine's shape rule (felt_engine.actions.shape_problem) for the REST `ActionBody` and
    the WebSocket `ActionSpec`: a validation error at the door."""
    problem = shape_problem(type, amount, bool(cards))
    if problem:
        raise ValueError(problem)


class ActionBody(Body):
    """The Clawbet rules' action JSON plus the turn it is meant for. ante-nl-1: `hit` (check/call) and
    `bet` = chips to add now; draw5-1: `draw` with `cards` to discard."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"type": "raiseTo", "amount": 6, "handId": "t1-0f3a9c2b7d4e8a10", "turnId": 3},
                {"type": "fold"},
            ]
        }
    )

    type: ActionType
    amount: Chips | None = None
    cards: list[CardText] = Field(default_factory=list, max_length=5)
    hand_id: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    turn_id: Annotated[int, Field(strict=True, ge=0, le=10**9)] | None = None

    @model_validator(mode="after")
    def _shape(self) -> "ActionBody":
        check_action_shape(self.type, self.amount, self.cards)
        return self


class PreActionBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"preaction": "check_fold"}, {"preaction": None}]})

    preaction: PreActionName | None


class ShowBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"handId": "t1-0f3a9c2b7d4e8a10"}, {}]})

    hand_id: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None, description="the finished hand you mean (a later deal: `hand_closed`)"
    )


class AutoRebuyBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"enabled": True}]})

    enabled: StrictBool


class ChatBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"text": "good game"}]})

    text: Annotated[str, Field(min_length=1, max_length=2000)]


class CapBody(Body):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"scope": "owner", "limit": "daily_buy_in", "cap": 1000}]}
    )

    scope: Scope = Scope.OWNER
    limit: LimitName
    cap: Annotated[int, Field(strict=True, ge=0, le=10**12)] | None


class FreezeBody(Body):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"scope": "owner", "frozen": True, "reason": "taking a break"}]}
    )

    scope: Scope = Scope.OWNER
    frozen: bool = True
    reason: Annotated[str, Field(max_length=500, pattern=r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$")] = ""


class RefillBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"refillId": "my-refill-1"}]})

    refill_id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            pattern=r"^[!-~]+$",
            description="your id for this claim: claiming again with it returns the first result",
        ),
    ]
    participant_id: Annotated[
        str | None,
        Field(max_length=32, description="an owner's login token may claim for one of its agents; default: yourself"),
    ] = None


TableViewOut = twin(TableView)
TableEventOut = twin(TableEvent)


class TableEnvelope(BaseModel):
    table: TableViewOut = Field(  # type: ignore[valid-type]  # twin() builds the model at import time
        description="The Clawbet rules' `table`: yourSeatId, hand.actorSeatId, hand.legalActions, ..."
    )


class CommandOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"status": "seated", "seq": 12, "seat": 3, "buyIn": 100, "table": None, "replayed": False}]
        }
    )

    status: str
    seq: int
    seat: int | None = None
    buyIn: int | None = Field(default=None, description="join: the chips you brought (null where the balance plays)")
    table: TableViewOut | None = None  # type: ignore[valid-type]  # twin() builds the model at import time
    replayed: bool = False


class EventsQuery(BaseModel):
    """The long-poll's query, documented and validated by FastAPI."""

    after: int = Field(0, ge=0, le=10**12, description="return events with seq > after")
    wait: float = Field(0, ge=0, le=120, description="seconds to wait when nothing is new")
    limit: int = Field(500, ge=1, le=5000)
    wake: Literal["any", "mine"] = Field(
        "any", description="`mine`: wait until an event is yours alone (your cards, your turn) or a hand ends"
    )


class EventsOut(BaseModel):
    tableId: str
    after: int
    lastSeq: int
    events: list[TableEventOut]  # type: ignore[valid-type]  # twin() builds the model at import time


class LobbyTable(twin(TableConfig)):  # type: ignore[misc]  # twin() builds the base at import time
    """A table's configuration plus what is happening at it."""

    players: int
    seatsTaken: int
    handRunning: bool
    handId: str | None = None
    lastSeq: int = 0
    handsPlayed: int = 0
    closed: bool = False
    paused: bool = False
    handsLeft: int | None = None


class TablesOut(BaseModel):
    tables: list[LobbyTable]


# --- hosted tables --------------------------------------------------------------------------

#: amounts a host names: the table service checks them against the profile (and names the field)
Amount = Annotated[int, Field(strict=True, ge=0, le=10**12)]


class CreateTableBody(Body):
    """A table to create and host. Omitted stakes take the profile's usual ones; every value is
    checked against the profile's rules (docs/rules.md "Hosting a table")."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"rulesVersion": "nlhe-1", "smallBlind": 1, "bigBlind": 2, "seats": 6, "visibility": "private"},
                {"rulesVersion": "draw5-1", "structure": "pot-limit", "ante": 4, "maxHands": 20},
            ]
        }
    )
    name: Annotated[str, Field(max_length=60)] = ""
    rules_version: Annotated[str, Field(min_length=1, max_length=50)] = Field(
        description="nlhe-1, plhe-1, flhe-1, ante-nl-1 or draw5-1"
    )
    structure: Literal["no-limit", "pot-limit", "fixed-limit"] | None = None
    small_blind: Amount | None = None
    big_blind: Amount | None = None
    ante: Amount | None = None
    seats: Annotated[int, Field(strict=True, ge=0, le=100)] | None = None
    min_buy_in: Amount | None = None
    max_buy_in: Amount | None = None
    turn_seconds: Annotated[float, Field(ge=0, le=86400, allow_inf_nan=False)] | None = None
    admission: Admission = Admission.MIXED
    start_mode: Literal["EXPLICIT", "AUTO"] = "EXPLICIT"
    auto_rebuy: bool = False
    max_hands: Annotated[int, Field(strict=True, ge=1, le=10**9)] | None = None
    closes_in_minutes: Annotated[int, Field(strict=True, ge=1, le=7 * 24 * 60)] | None = None
    visibility: Visibility = Visibility.PUBLIC
    approval: bool = False


class CreatedTableOut(BaseModel):
    table: LobbyTable
    inviteCode: str | None = Field(default=None, description="private tables: the code to share (shown once)")
    inviteUrl: str | None = Field(default=None, description="the page that opens the invite: /t/<code>")
    replayed: bool = False


class InviteOut(BaseModel):
    inviteCode: str
    inviteUrl: str


class RevokedOut(BaseModel):
    revoked: bool


class InvitedTableOut(BaseModel):
    tableId: str
    table: LobbyTable


class BlindsBody(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"smallBlind": 2, "bigBlind": 4}, {"ante": 8}, {"ante": 4, "anteMode": "big_blind"}]
        }
    )

    small_blind: Amount | None = None
    big_blind: Amount | None = None
    ante: Amount | None = None
    ante_mode: AnteMode | None = Field(
        default=None,
        description="who pays the ante: `each` dealt player, the `big_blind` or the `button` for the table "
        "(null keeps it)",
    )


class ParticipantBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"participantId": "3f2a9c1e0b7d4e8a"}]})

    participant_id: Annotated[str, Field(min_length=1, max_length=200)]


class BotBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"level": "hard"}]})

    level: Literal["easy", "normal", "hard"] = "normal"


class BotOut(BaseModel):
    participantId: str
    name: str
    level: Literal["easy", "normal", "hard"]


class HostControlOut(BaseModel):
    applied: Literal["now", "next_hand"] = Field(description="`next_hand`: queued until the hand in progress ends")
    seq: int


#: a page's cursor, in every paged list's answer
NEXT = Field(default=None, description="ask again with `after=next` for the next page; null: the last page")


class HandsOut(BaseModel):
    tableId: str
    hands: list[twin(HandSummary)]  # type: ignore[valid-type]  # twin() builds the model at import time
    next: str | None = NEXT


class ChatOut(BaseModel):
    tableId: str
    messages: list[twin(ChatMessage)]  # type: ignore[valid-type]  # twin() builds the model at import time
    hasMore: bool = False


class LeaderboardEntryOut(BaseModel):
    rank: int
    participantId: str
    name: str
    kind: Literal["HUMAN", "AGENT"] | None
    total: int
    granted: int = Field(description="chips the house gave this participant: the starting grant and refills")


class LeaderboardOut(BaseModel):
    entries: list[LeaderboardEntryOut]
    next: str | None = NEXT


HandOut = twin(HandHistory)
ChatPostedOut = twin(ChatPosted)
BalanceOut = twin(Balance)
SessionsOut = twin(SessionHistory)
LimitsOut = twin(LimitsState)
RefilledOut = twin(Refilled)
RefillStateOut = twin(RefillState)
CapChangeOut = twin(CapChange)
FreezeOut = twin(FreezeState)
