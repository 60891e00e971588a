"""Chat messages: post to a table, read its recent history, keep its membership, the event.

Public table speech (the Clawbet rules, "Limits and chat"). The gateway authenticates and passes who is
speaking; the chat service checks that the speaker is a member of the table (seated — from the
table's own seat events, `felt_contracts.table.SEAT_TAKEN` / `SEAT_FREED` / `SEATS_EMPTIED` —
or watching, as the gateway says with `ChatJoin` / `ChatLeave`), cleans and checks the text, throttles per participant, stores the message in the
table's recent history and publishes a `ChatMessageEvent` on `subjects.chat_events(table_id)`.

Text is plain text, never HTML: it is stored and delivered exactly as cleaned by
`clean_chat_text` (control characters removed, trimmed), and every consumer must escape it
(browsers render it with `textContent`, never `innerHTML`).

Refusals are error replies (`felt_runtime.bus.call` raises `BusError`):
- `malformed`: the request does not fit these models (missing/unknown field, wrong type, a raw
  text longer than `MAX_RAW_CHARS`, a bad table id);
- `invalid_message`: the cleaned text is empty or longer than `MAX_CHAT_CHARS`; details
  `reason` ("empty" | "too_long"), `length`, `max_chars`;
- `forbidden`: the participant is neither seated at nor watching the table;
- `throttled`: too many messages; details `retry_after` (seconds, float, > 0), `limit`,
  `window_seconds`;
- `conflict`: a `message_id` reused by the same participant for a different post;
- `unavailable`: the chat store did not answer; retry with the same `message_id`.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import Field

from felt_contracts.base import Event, Message, Request

#: the most characters (Unicode code points) a message may have after cleaning (the Clawbet rules)
MAX_CHAT_CHARS = 500
#: a raw `text` longer than this is `malformed` before any cleaning (bounds the work)
MAX_RAW_CHARS = 4 * MAX_CHAT_CHARS
#: the most messages one history query returns (the service keeps the last 100 per table)
MAX_HISTORY_LIMIT = 100

#: a table id is one NATS subject token: letters, digits, `_` and `-`
TableId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")]
#: participant ids: printable ASCII without spaces
ParticipantId = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[!-~]+$")]
DisplayName = Annotated[str, Field(min_length=1, max_length=64)]

# C0/C1 controls and DEL; bidi embeddings/overrides/isolates (text-spoofing); lone surrogates
_REMOVED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# line breaks and tabs become a space, so words on either side do not merge
_SPACES = re.compile("[\t\n\r\u2028\u2029]")


def clean_chat_text(text: str) -> str:
    """The text as stored and delivered: control characters removed (tabs and line breaks
    become spaces), then trimmed. Nothing else changes: no HTML escaping, no normalization."""
    return _REMOVED.sub("", _SPACES.sub(" ", text)).strip()


class ChatRole(StrEnum):
    SEATED = "seated"
    WATCHING = "watching"


class ChatPost(Request):
    """Say something at a table. `message_id` is the idempotency key (per participant): a retry
    with the same one returns the first `ChatPosted` and stores nothing new."""

    table_id: TableId
    participant_id: ParticipantId  # authenticated by the gateway
    display_name: DisplayName  # as the gateway knows it; control characters are removed
    text: str = Field(max_length=MAX_RAW_CHARS)  # cleaned by `clean_chat_text`, then 1..500 chars


class ChatMessage(Message):
    """One stored chat message. `seq` increases per table (1, 2, ...); `id` is unique."""

    id: str
    seq: int = Field(ge=1)
    table_id: str
    participant_id: str
    display_name: str
    text: str  # plain text: escape it when rendering
    sent_at: datetime  # UTC, when the chat service accepted it


class ChatPosted(Message):
    """A post was accepted. `duplicate`: this is a retry and `message` is the first result."""

    message: ChatMessage
    duplicate: bool = False


class ChatMessageEvent(Event):
    """Published on `subjects.chat_events(table_id)` for each accepted message (core NATS, for
    the gateway to fan out). `event_id` is the message's `id`: a retried post may publish the
    event again, so consumers drop repeats by `event_id` (or `message.seq`)."""

    table_id: str
    message: ChatMessage


class ChatHistory(Request):
    """Recent messages of a table, oldest first: the newest `limit` with `seq < before`
    (all kept ones when `before` is None). Only the last 100 per table are kept."""

    table_id: TableId
    before: int | None = Field(default=None, ge=1)  # a `seq`: page back from there
    limit: int = Field(default=50, ge=1, le=MAX_HISTORY_LIMIT)


class ChatHistoryPage(Message):
    table_id: str
    messages: list[ChatMessage]  # oldest first
    has_more: bool  # older kept messages exist: ask again with before=messages[0].seq


class ChatJoin(Request):
    """Someone watches a table (the gateway: a socket subscribed, a REST read of its view or
    events): they may post there for `ttl_seconds` (None: until `ChatLeave`). Idempotent; a
    longer watch is never shortened by a shorter one. Seats need no call: chat follows the
    table's seat events."""

    table_id: TableId
    participant_id: ParticipantId
    role: ChatRole = ChatRole.WATCHING  # informational
    ttl_seconds: float | None = Field(default=None, gt=0, le=86_400)


class ChatLeave(Request):
    """Someone stopped watching the table (their last socket there closed): unless seated, they
    may no longer post there. Idempotent."""

    table_id: TableId
    participant_id: ParticipantId


class ChatMembership(Message):
    """Watching after a `ChatJoin` / `ChatLeave` (`member`: watching). `changed`: whether this
    request changed it."""

    table_id: str
    participant_id: str
    member: bool
    changed: bool
