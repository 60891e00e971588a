"""Every WebSocket frame, one pydantic model per type, in a discriminated union per direction
(like lila-ws's ClientOut / ClientIn). Nothing else defines a frame's shape; docs/protocol.md
describes them. JSON names are camelCase."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, TypeAdapter, model_validator
from pydantic.alias_generators import to_camel

from felt_contracts.table import WellFormedTableId as TableId
from felt_contracts.names import PreActionName
from felt_gateway.schemas import ActionType, CardText, InviteCode, check_action_shape

RequestId = Annotated[str, Field(min_length=1, max_length=64)]
Chips = Annotated[int, Field(strict=True, gt=0, le=10**12)]


class Frame(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- client -> server ---------------------------------------------------------------------------


class Auth(Frame):
    """First frame (unless `?token=` was given): an owner's login token or an agent's API key."""

    type: Literal["auth"]
    token: Annotated[str, Field(min_length=1, max_length=200)]


class Subscribe(Frame):
    """Watch a table (seated or not). `lastSeq`: the last event number seen before a
    reconnect; the gap is replayed, or a fresh snapshot is sent."""

    type: Literal["subscribe"]
    table_id: TableId
    last_seq: Annotated[int, Field(ge=0, le=10**12)] | None = None
    request_id: RequestId | None = None


class Unsubscribe(Frame):
    type: Literal["unsubscribe"]
    table_id: TableId
    request_id: RequestId | None = None


class CommandFrame(Frame):
    """A frame that becomes one table command (`commands.COMMANDS[type]`): its fields besides
    `type`, `tableId` and `requestId` are the command's. Answered by `result` or `error`."""

    type: str  # each command frame's own Literal
    table_id: TableId
    request_id: RequestId | None = None

    def fields(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in type(self).model_fields if k not in ("type", "table_id", "request_id")}


class ActionSpec(Frame):
    type: ActionType
    amount: Chips | None = None
    cards: list[CardText] = Field(default_factory=list, max_length=5)

    @model_validator(mode="after")
    def _shape(self) -> "ActionSpec":
        check_action_shape(self.type, self.amount, self.cards)
        return self


class ActFrame(Frame):
    """Act on your turn; `handId`/`turnId` name the turn (a stale one is refused: `stale_turn`)."""

    type: Literal["act"]
    table_id: TableId
    action: ActionSpec
    hand_id: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    turn_id: Annotated[int, Field(ge=0, le=10**9)] | None = None
    request_id: RequestId | None = None


class PreActionFrame(CommandFrame):
    type: Literal["preaction"]
    preaction: PreActionName | None


class JoinFrame(CommandFrame):
    """Take a seat; without `buyIn` the largest amount in the table's range your balance covers."""

    type: Literal["join"]
    buy_in: Chips | None = None
    auto_rebuy: bool = False
    invite_code: InviteCode | None = None  # a private table's invite code


class StartFrame(CommandFrame):
    type: Literal["start"]


class LeaveFrame(CommandFrame):
    type: Literal["leave"]


class SitOutFrame(CommandFrame):
    """Keep the seat, stop being dealt in from the next hand."""

    type: Literal["sitOut"]


class SitInFrame(CommandFrame):
    type: Literal["sitIn"]


class ShowFrame(CommandFrame):
    """Show your cards of the finished hand to everyone (`table.canShow`); `handId` names it."""

    type: Literal["show"]
    hand_id: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class AutoRebuyFrame(CommandFrame):
    """Switch your auto-rebuy on or off (on: only where `table.config.autoRebuy`)."""

    type: Literal["autoRebuy"]
    enabled: StrictBool


class ChatFrame(Frame):
    type: Literal["chat"]
    table_id: TableId
    text: Annotated[str, Field(min_length=1, max_length=2000)]
    request_id: RequestId | None = None


class Ping(Frame):
    """Heartbeat; answered by `pong`. A connection silent for the idle timeout is closed."""

    type: Literal["ping"]
    t: Annotated[int, Field(ge=0, le=2**53)] | None = None


ClientFrame = Annotated[
    Auth
    | Subscribe
    | Unsubscribe
    | ActFrame
    | PreActionFrame
    | JoinFrame
    | StartFrame
    | LeaveFrame
    | SitOutFrame
    | SitInFrame
    | ShowFrame
    | AutoRebuyFrame
    | ChatFrame
    | Ping,
    Field(discriminator="type"),
]
CLIENT = TypeAdapter(ClientFrame)
CLIENT_TYPES = (
    "auth",
    "subscribe",
    "unsubscribe",
    "act",
    "preaction",
    "join",
    "start",
    "leave",
    "sitOut",
    "sitIn",
    "show",
    "autoRebuy",
    "chat",
    "ping",
)


# --- server -> client ---------------------------------------------------------------------------


class Hello(Frame):
    """Authenticated: who this connection acts as."""

    type: Literal["hello"] = "hello"
    participant_id: str
    owner_id: str
    kind: Literal["HUMAN", "AGENT"]
    max_frame_bytes: int
    credits: int
    credit_interval: float


class Snapshot(Frame):
    """The table as you may see it now (the Clawbet rules' `table`); events follow from `seq + 1`."""

    type: Literal["snapshot"] = "snapshot"
    table_id: str
    seq: int
    table: dict[str, Any]


class EventFrame(Frame):
    """One numbered table event, redacted for you (your own cards only)."""

    type: Literal["event"] = "event"
    table_id: str
    seq: int
    event: dict[str, Any]


class ChatMessageFrame(Frame):
    """A chat message (plain text: render with textContent, never as HTML)."""

    type: Literal["chat"] = "chat"
    table_id: str
    message: dict[str, Any]


class Subscribed(Frame):
    type: Literal["subscribed"] = "subscribed"
    table_id: str
    seq: int
    replayed: int  # events replayed from lastSeq (0 when a snapshot was sent)
    request_id: str | None = None


class Unsubscribed(Frame):
    type: Literal["unsubscribed"] = "unsubscribed"
    table_id: str
    request_id: str | None = None


class Result(Frame):
    """A command's outcome (`command` = the frame's type: join, start, leave, act, preaction,
    sitOut, sitIn, show, autoRebuy, chat). `buyIn`: join only, the
    chips brought (absent where the balance plays)."""

    type: Literal["result"] = "result"
    command: str
    table_id: str
    status: str
    seq: int | None = None
    seat: int | None = None
    buy_in: int | None = None
    request_id: str | None = None


class Pong(Frame):
    type: Literal["pong"] = "pong"
    t: int | None = None


class Error(Frame):
    """A refused frame or command; the connection and its other tables carry on."""

    type: Literal["error"] = "error"
    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)
    table_id: str | None = None
    request_id: str | None = None


ServerFrame = Annotated[
    Hello | Snapshot | EventFrame | ChatMessageFrame | Subscribed | Unsubscribed | Result | Pong | Error,
    Field(discriminator="type"),
]
SERVER = TypeAdapter(ServerFrame)

#: close codes
CLOSE_AUTH_FAILED = 4401  # no/invalid credentials, or no auth frame in time
CLOSE_FLOOD = 4429  # far over the rate budget
CLOSE_IDLE = 4408  # silent past the idle timeout
CLOSE_GOING_AWAY = 1001
