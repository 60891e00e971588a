"""The chat service against real NATS and Redis: posting and history, the 500-character
plain-text rule, membership, throttling, idempotent retries, malformed input, the event."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta

import nats
import pytest

from felt_contracts import subjects
from felt_contracts.chat import (
    ChatHistory,
    ChatHistoryPage,
    ChatJoin,
    ChatLeave,
    ChatMembership,
    ChatMessageEvent,
    ChatPost,
)
from felt_contracts.errors import ErrorCode
from felt_contracts.table import TableEvent
from felt_runtime.bus import BusError, call
from tests.chat.conftest import LIMIT, WINDOW, fresh, join, post, raw_request
from tests.support.waiting import eventually, refused

#: one chat process per module: under xdist every test of it must run on the same worker
pytestmark = pytest.mark.xdist_group("chat")


async def history(broker, table_id: str, **query) -> ChatHistoryPage:
    return await call(broker, subjects.CHAT_HISTORY, ChatHistory(table_id=table_id, **query), ChatHistoryPage)


# --- post and history -------------------------------------------------------------------


async def test_post_then_history(broker, table) -> None:
    ann, bob = fresh("p"), fresh("p")
    await join(broker, table, ann)
    await join(broker, table, bob, role="watching")
    before = datetime.now(UTC) - timedelta(seconds=5)
    first = await post(broker, table, ann, "nice hand", display_name="Ann")
    second = await post(broker, table, bob, "thanks", display_name="Bob")
    m = first.message
    assert (m.table_id, m.participant_id, m.display_name, m.text, m.seq) == (table, ann, "Ann", "nice hand", 1)
    assert m.id and before < m.sent_at <= datetime.now(UTC) + timedelta(seconds=5)
    assert second.message.seq == 2 and not first.duplicate

    page = await history(broker, table)
    assert page.messages == [first.message, second.message] and not page.has_more
    older = await history(broker, table, before=2)
    assert older.messages == [first.message]
    newest = await history(broker, table, limit=1)
    assert newest.messages == [second.message] and newest.has_more
    assert (await history(broker, fresh("t"))).messages == []


async def test_history_keeps_the_last_100(broker, table) -> None:
    speakers = [fresh("p") for _ in range(21)]  # 21 x 5 = 105 posts, each speaker within its limit
    for p in speakers:
        await join(broker, table, p)
    for i in range(105):
        await post(broker, table, speakers[i // LIMIT], f"message {i + 1}")
    page = await history(broker, table, limit=100)
    assert [m.seq for m in page.messages] == list(range(6, 106)) and not page.has_more
    assert page.messages[-1].text == "message 105"
    back = await history(broker, table, before=50, limit=10)
    assert [m.seq for m in back.messages] == list(range(40, 50)) and back.has_more


# --- the 500-character plain-text rule --------------------------------------------------


async def test_500_characters_accepted_501_refused(broker, table) -> None:
    p = fresh("p")
    await join(broker, table, p)
    assert len((await post(broker, table, p, "x" * 500)).message.text) == 500
    assert len((await post(broker, table, p, "  " + "é" * 500 + "\n ")).message.text) == 500  # trimmed first
    err = await refused(post(broker, table, p, "x" * 501))
    assert err.code is ErrorCode.INVALID_MESSAGE
    assert err.details == {"reason": "too_long", "length": 501, "max_chars": 500}
    assert [len(m.text) for m in (await history(broker, table)).messages] == [500, 500]


async def test_empty_text_refused(broker, table) -> None:
    p = fresh("p")
    await join(broker, table, p)
    for text in ("", "   ", "\n\t ", "\x00\x07\x1b"):
        err = await refused(post(broker, table, p, text))
        assert err.code is ErrorCode.INVALID_MESSAGE and err.details["reason"] == "empty"
    assert (await history(broker, table)).messages == []


async def test_control_characters_stripped(broker, table) -> None:
    p = fresh("p")
    await join(broker, table, p)
    posted = await post(broker, table, p, "\x1b[31mgood\x00 luck\u202e\r\nall 🂡", display_name="Ann\x07")
    assert posted.message.text == "[31mgood luck  all 🂡"
    assert posted.message.display_name == "Ann"
    # the count is after cleaning: 500 letters plus control characters is accepted
    assert len((await post(broker, table, p, "\x00" * 100 + "y" * 500)).message.text) == 500


async def test_html_stays_text(broker, table, nats_url) -> None:
    """No escaping, no stripping: `<script>` comes back verbatim as a JSON string; clients
    render it with textContent (docs/chat.md)."""
    p = fresh("p")
    await join(broker, table, p)
    text = "<script>alert('hi')</script> & <b>bold</b> &lt;"
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.subscribe(subjects.chat_events(table))
        body = ChatPost(table_id=table, participant_id=p, display_name="<i>Ann</i>", text=text).model_dump(mode="json")
        reply = await raw_request(broker, subjects.CHAT_POST, body)
        event = json.loads((await sub.next_msg(timeout=5)).data)
    finally:
        await nc.close()
    assert reply["ok"] and reply["result"]["message"]["text"] == text
    assert reply["result"]["message"]["display_name"] == "<i>Ann</i>"
    assert json.dumps(text)[1:-1].encode() in reply["_raw"]  # verbatim in the JSON bytes
    assert b"&lt;script" not in reply["_raw"] and b"\\u003c" not in reply["_raw"]
    assert event["message"]["text"] == text
    assert (await history(broker, table)).messages[0].text == text


# --- membership -------------------------------------------------------------------------


async def test_non_member_forbidden(broker, table) -> None:
    member, stranger = fresh("p"), fresh("p")
    await join(broker, table, member)
    err = await refused(post(broker, table, stranger, "let me in"))
    assert err.code is ErrorCode.FORBIDDEN and err.details["participant_id"] == stranger
    # a member of another table is not a member here
    await join(broker, fresh("t"), stranger)
    assert (await refused(post(broker, table, stranger, "still no"))).code is ErrorCode.FORBIDDEN
    assert [m.participant_id for m in (await history(broker, table)).messages] == []


async def test_join_and_leave(broker, table) -> None:
    p = fresh("p")
    assert (await join(broker, table, p, role="watching")).changed
    assert not (await join(broker, table, p, role="seated")).changed  # idempotent
    await post(broker, table, p, "hello")
    left = await call(broker, subjects.CHAT_LEAVE, ChatLeave(table_id=table, participant_id=p), ChatMembership)
    assert left.changed and not left.member
    again = await call(broker, subjects.CHAT_LEAVE, ChatLeave(table_id=table, participant_id=p), ChatMembership)
    assert not again.changed
    assert (await refused(post(broker, table, p, "bye"))).code is ErrorCode.FORBIDDEN


async def test_a_watch_with_a_ttl_ends_by_itself(broker, table) -> None:
    """A REST reader watches for a while (the gateway's ttl); a socket until ChatLeave."""
    p = fresh("p")
    await call(broker, subjects.CHAT_JOIN, ChatJoin(table_id=table, participant_id=p, ttl_seconds=1), ChatMembership)
    await post(broker, table, p, "reading")
    await asyncio.sleep(1.2)
    assert (await refused(post(broker, table, p, "still?"))).code is ErrorCode.FORBIDDEN
    await join(broker, table, p)  # no ttl: watching until ChatLeave
    await call(broker, subjects.CHAT_JOIN, ChatJoin(table_id=table, participant_id=p, ttl_seconds=1), ChatMembership)
    await asyncio.sleep(1.2)  # a shorter watch never shortens a longer one
    await post(broker, table, p, "socket open")


class TableEvents:
    """Publishes seat changes the way the table does (its seat-changes stream, `Nats-Msg-Id` = table:seq)."""

    def __init__(self, js, table_id: str) -> None:
        self.js, self.table_id = js, table_id

    async def send(self, seq: int, kind: str, participant_id: str | None = None, msg_id: str | None = None) -> None:
        ev = TableEvent(table_id=self.table_id, seq=seq, kind=kind, participant_id=participant_id, at=datetime.now(UTC))
        await self.js.publish(
            subjects.table_seat_changes(self.table_id),
            ev.model_dump_json().encode(),
            headers={"Nats-Msg-Id": msg_id or f"{self.table_id}:{seq}"},
        )


async def may_post(broker, table_id: str, participant_id: str, expect: bool, timeout: float = 10) -> None:
    """Wait until the participant may (or may not) post: seat events arrive through JetStream."""

    async def member() -> bool:
        try:
            await post(broker, table_id, participant_id, "here?")
        except BusError as exc:  # throttled: a member (membership is checked first)
            assert exc.code in (ErrorCode.FORBIDDEN, ErrorCode.THROTTLED), exc
            return exc.code is ErrorCode.THROTTLED
        return True

    await eventually(member, lambda m: m == expect, timeout=timeout, every=0.05, what=f"{participant_id} a member")


async def test_seats_follow_the_tables_events(broker, table, nats_url) -> None:
    """Seated players may post: chat follows the table's seated / left / reset events, in seq
    order (a redelivered older event never undoes a newer one), with no call from anyone."""
    p, q = fresh("p"), fresh("p")
    nc = await nats.connect(nats_url)
    try:
        events = TableEvents(nc.jetstream(), table)
        await events.send(1, "seated", p)
        await post(broker, table, p, "just sat down")  # at once: a refusal waits for the seat events first
        await events.send(2, "left", p)
        await may_post(broker, table, p, False)
        await events.send(1, "seated", p, msg_id="again")  # an old event, delivered once more
        await events.send(3, "waiting", q)  # sat down during a hand
        await may_post(broker, table, q, True)  # processed after the old one ...
        await may_post(broker, table, p, False, timeout=0)  # ... which changed nothing
        await events.send(4, "seated", p)
        await events.send(5, "session_closed", q)
        await may_post(broker, table, q, False)
        await may_post(broker, table, p, True, timeout=0)
        await events.send(6, "table_reset")  # a restart: every seat empty
        await may_post(broker, table, p, False)
        await events.send(5, "seated", q, msg_id="late")  # older than the reset
        await events.send(7, "seated", q)
        await post(broker, table, q, "back")
        await may_post(broker, table, p, False, timeout=0)
    finally:
        await nc.close()


# --- throttle ---------------------------------------------------------------------------


async def test_throttle_boundary(broker, table) -> None:
    p, other = fresh("p"), fresh("p")
    await join(broker, table, p)
    await join(broker, table, other)
    started = time.monotonic()
    for i in range(LIMIT):  # exactly the limit is allowed
        await post(broker, table, p, f"msg {i}")
    err = await refused(post(broker, table, p, "one too many"))
    assert time.monotonic() - started < WINDOW, "the burst must fit in one window"
    assert err.code is ErrorCode.THROTTLED
    retry_after = err.details["retry_after"]
    assert 0 < retry_after <= WINDOW
    assert err.details["limit"] == LIMIT and err.details["window_seconds"] == WINDOW
    await post(broker, table, other, "others are not throttled")
    # refused posts do not count: after the window the participant may post again
    await asyncio.sleep(retry_after + 0.05)
    assert (await post(broker, table, p, "allowed again")).message.text == "allowed again"
    texts = [m.text for m in (await history(broker, table)).messages]
    assert "one too many" not in texts and texts[-1] == "allowed again"


async def test_throttle_is_per_participant_across_tables(broker) -> None:
    p, t1, t2 = fresh("p"), fresh("t"), fresh("t")
    await join(broker, t1, p)
    await join(broker, t2, p)
    for i in range(LIMIT):
        await post(broker, t1 if i % 2 else t2, p, f"msg {i}")
    assert (await refused(post(broker, t1, p, "no"))).code is ErrorCode.THROTTLED
    assert (await refused(post(broker, t2, p, "no"))).code is ErrorCode.THROTTLED


# --- idempotency ------------------------------------------------------------------------


async def test_idempotent_retry(broker, table) -> None:
    p = fresh("p")
    await join(broker, table, p)
    first = await post(broker, table, p, "only once", message_id="m-1")
    retry = await post(broker, table, p, "only once", message_id="m-1")
    assert retry.duplicate and retry.message == first.message
    assert [m.text for m in (await history(broker, table)).messages] == ["only once"]
    # retries do not use up the throttle: LIMIT - 1 more posts are still allowed
    for i in range(LIMIT - 1):
        await post(broker, table, p, f"more {i}")
    # the key is per participant: someone else's "m-1" is a different post
    q = fresh("p")
    await join(broker, table, q)
    assert not (await post(broker, table, q, "mine", message_id="m-1")).duplicate
    # same key, different content: a conflict, nothing stored
    err = await refused(post(broker, table, q, "something else", message_id="m-1"))
    assert err.code is ErrorCode.CONFLICT
    assert len((await history(broker, table)).messages) == LIMIT + 1


async def test_concurrent_retries_store_once(broker, table) -> None:
    p = fresh("p")
    await join(broker, table, p)
    results = await asyncio.gather(*(post(broker, table, p, "race", message_id="same") for _ in range(4)))
    assert len({r.message.id for r in results}) == 1 and sum(not r.duplicate for r in results) == 1
    assert len((await history(broker, table)).messages) == 1


# --- malformed input --------------------------------------------------------------------

GOOD_POST = {"table_id": "t1", "participant_id": "p1", "display_name": "Ann", "text": "hi"}


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        (subjects.CHAT_POST, b"not json{"),
        (subjects.CHAT_POST, b"[]"),
        (subjects.CHAT_POST, {k: v for k, v in GOOD_POST.items() if k != "text"}),
        (subjects.CHAT_POST, {**GOOD_POST, "text": 5}),
        (subjects.CHAT_POST, {**GOOD_POST, "text": None}),
        (subjects.CHAT_POST, {**GOOD_POST, "surprise": 1}),
        (subjects.CHAT_POST, {**GOOD_POST, "table_id": "a.b"}),  # not one subject token
        (subjects.CHAT_POST, {**GOOD_POST, "table_id": ""}),
        (subjects.CHAT_POST, {**GOOD_POST, "participant_id": "has space"}),
        (subjects.CHAT_POST, {**GOOD_POST, "display_name": ""}),
        (subjects.CHAT_POST, {**GOOD_POST, "text": "x" * 2001}),  # raw text over MAX_RAW_CHARS
        (subjects.CHAT_HISTORY, {"table_id": "t1", "limit": 0}),
        (subjects.CHAT_HISTORY, {"table_id": "t1", "limit": 101}),
        (subjects.CHAT_HISTORY, {"table_id": "t1", "before": "x"}),
        (subjects.CHAT_JOIN, {"table_id": "t1", "participant_id": "p1", "role": "dealer"}),
        (subjects.CHAT_LEAVE, {"table_id": "t1"}),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
async def test_malformed_messages(broker, subject, body) -> None:
    reply = await raw_request(broker, subject, body)
    assert reply["ok"] is False and reply["error"]["code"] == "malformed"


# --- the event --------------------------------------------------------------------------


async def test_event_published_on_post(broker, table, nats_url) -> None:
    p = fresh("p")
    await join(broker, table, p)
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.subscribe(subjects.chat_events(table))
        await nc.flush()
        posted = await post(broker, table, p, "gl hf", message_id="ev-1", correlation_id="corr-1")
        event = ChatMessageEvent.model_validate_json((await sub.next_msg(timeout=5)).data)
        assert event.message == posted.message and event.table_id == table
        assert event.event_id == posted.message.id and event.correlation_id == "corr-1"
        # refused posts publish nothing
        stranger = fresh("p")
        await refused(post(broker, table, stranger, "nope"))
        await refused(post(broker, table, p, ""))
        # a retry publishes the same event again (the first publish may be what failed)
        await post(broker, table, p, "gl hf", message_id="ev-1")
        again = ChatMessageEvent.model_validate_json((await sub.next_msg(timeout=5)).data)
        assert again.event_id == event.event_id
        with pytest.raises(nats.errors.TimeoutError):
            await sub.next_msg(timeout=0.3)
    finally:
        await nc.close()
