"""Bus handlers of the chat service: post, history, join and leave (watchers), and the
consumer of the tables' events that keeps who sits where (seated players may post).

Every subject answers concurrently (`CONCURRENCY` handlers in flight per subject): each handler
is one Lua script or read in Redis, atomic by itself (chat replicas answer side by side anyway),
and a post that waits for the seat events to catch up (`Seats.catch_up`, up to a second) holds
up no other post."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar, cast

from faststream import AckPolicy
from faststream.nats import JStream, NatsBroker, NatsMessage, PullSub
from nats.js.api import DeliverPolicy
from pydantic import ValidationError
from redis.exceptions import RedisError

from felt_chat.settings import ChatSettings
from felt_chat.store import ChatStore, Forbidden, IdempotencyConflict, Throttled
from felt_chat.text import check_text, clean_display_name
from felt_contracts import subjects
from felt_contracts.base import Request, new_id
from felt_contracts.chat import (
    ChatHistory,
    ChatHistoryPage,
    ChatJoin,
    ChatLeave,
    ChatMembership,
    ChatMessageEvent,
    ChatPost,
    ChatPosted,
)
from felt_contracts.errors import ErrorCode
from felt_contracts.table import SEAT_FREED, SEAT_TAKEN, SEATS_EMPTIED, TableEvent
from felt_runtime.nats_access import pull_inbox
from felt_runtime.bus import BusError, declare_contract, responder

log = logging.getLogger("felt.chat")
#: handlers in flight per subject
CONCURRENCY = 256
Req = TypeVar("Req", bound=Request)
Res = TypeVar("Res")


def store_refusals(handler: Callable[[Req], Awaitable[Res]]) -> Callable[[Req], Awaitable[Res]]:
    """Redis trouble is `unavailable`: retry with the same message_id."""

    @functools.wraps(handler)
    async def wrapped(request: Req) -> Res:
        try:
            return await handler(request)
        except (RedisError, OSError) as exc:
            raise BusError(ErrorCode.UNAVAILABLE, f"chat store unavailable ({type(exc).__name__})") from None

    return wrapped


class Seats:
    """How far chat's view of the seats is behind the tables' event stream. A post refused as
    not a member waits (at most `CATCH_UP` seconds) until every seat event the stream held at the
    refusal is applied, then is judged again: a player whose join was answered may chat at once,
    though their `seated` event reaches chat through JetStream."""

    CATCH_UP = 1.0

    def __init__(self, broker: NatsBroker, consumer: str) -> None:
        self.broker = broker
        self.consumer = consumer

    async def catch_up(self) -> None:
        """Wait until the seats are applied up to the stream's present. The caller judges again
        whatever this finds: the event it lacked may have been applied between its refusal and
        this look (seen on a busy machine: a join's answer, then chat said not seated)."""
        js = self.broker.config.connection_state.stream
        try:
            until = (await js.stream_info(subjects.TABLE_SEATS_STREAM)).state.last_seq
            deadline = time.monotonic() + self.CATCH_UP
            while time.monotonic() < deadline:
                info = await js.consumer_info(subjects.TABLE_SEATS_STREAM, self.consumer)
                applied_all = not info.num_pending and not info.num_ack_pending
                if applied_all or (info.ack_floor is not None and (info.ack_floor.stream_seq or 0) >= until):
                    return
                await asyncio.sleep(0.01)
            log.warning("seat events not applied within %.1f s; judging with what is", self.CATCH_UP)
        except Exception:  # JetStream away: judge with what is applied
            log.warning("seat events not caught up", exc_info=True)


def register(broker: NatsBroker, store: ChatStore, config: ChatSettings) -> None:
    queue = subjects.CHAT_QUEUE
    seats = Seats(broker, config.consumer)

    @responder(broker, subjects.CHAT_POST, ChatPost, queue=queue, concurrency=CONCURRENCY)
    @store_refusals
    async def post(req: ChatPost) -> ChatPosted:
        """Post plain text at a table (members only, 1..500 characters, throttled); publishes
        a ChatMessageEvent on felt.evt.chat.<table_id>."""
        text = check_text(req.text)
        message = {
            "id": new_id(),
            "table_id": req.table_id,
            "participant_id": req.participant_id,
            "display_name": clean_display_name(req.display_name, req.participant_id),
            "text": text,
            "sent_at": datetime.now(UTC).isoformat(),
        }
        try:
            try:
                stored = await store.post(req, req.participant_id, req.table_id, message)
            except Forbidden:
                # a seat event published before this post (a join's, say) may still be on its way
                await seats.catch_up()
                stored = await store.post(req, req.participant_id, req.table_id, message)
        except Forbidden:
            raise BusError(
                ErrorCode.FORBIDDEN,
                "only participants seated at or watching the table may chat",
                table_id=req.table_id,
                participant_id=req.participant_id,
            ) from None
        except Throttled as exc:
            raise BusError(
                ErrorCode.THROTTLED,
                "too many chat messages; wait before posting again",
                retry_after=round(exc.retry_after_ms / 1000, 3),
                limit=config.max_messages,
                window_seconds=config.window_seconds,
            ) from None
        except IdempotencyConflict:
            raise BusError(
                ErrorCode.CONFLICT, "message_id was used before for a different post", message_id=req.message_id
            ) from None
        # published again on a retry (the first publish may be what failed); consumers drop
        # repeats by event_id. A failed publish does not fail the post: it is in the history.
        event = ChatMessageEvent(
            event_id=stored.message.id, correlation_id=req.correlation_id, table_id=req.table_id, message=stored.message
        )
        try:
            await broker.publish(event.model_dump(mode="json"), subjects.chat_events(req.table_id))
        except Exception:  # logged; the message is stored
            log.warning("chat event not published", extra={"correlation_id": req.correlation_id}, exc_info=True)
        return ChatPosted(message=stored.message, duplicate=stored.duplicate)

    @responder(broker, subjects.CHAT_HISTORY, ChatHistory, queue=queue, concurrency=CONCURRENCY)
    @store_refusals
    async def history(req: ChatHistory) -> ChatHistoryPage:
        """The newest `limit` kept messages of a table before `seq` `before`, oldest first."""
        kept = await store.history(req.table_id)
        if req.before is not None:
            kept = [m for m in kept if m.seq < req.before]
        page = kept[-req.limit :]
        return ChatHistoryPage(table_id=req.table_id, messages=page, has_more=len(kept) > len(page))

    @responder(broker, subjects.CHAT_JOIN, ChatJoin, queue=queue, concurrency=CONCURRENCY)
    @store_refusals
    async def join(req: ChatJoin) -> ChatMembership:
        """A participant watches a table (for `ttl_seconds`, or until ChatLeave): they may post there."""
        changed = await store.join(req.table_id, req.participant_id, req.ttl_seconds)
        return ChatMembership(table_id=req.table_id, participant_id=req.participant_id, member=True, changed=changed)

    @responder(broker, subjects.CHAT_LEAVE, ChatLeave, queue=queue, concurrency=CONCURRENCY)
    @store_refusals
    async def leave(req: ChatLeave) -> ChatMembership:
        """A participant stopped watching a table: unless seated, they may not post there."""
        changed = await store.leave(req.table_id, req.participant_id)
        return ChatMembership(table_id=req.table_id, participant_id=req.participant_id, member=False, changed=changed)

    declare_contract(subjects.TABLE_SEAT_CHANGES_ALL, TableEvent)

    @broker.subscriber(
        subjects.TABLE_SEAT_CHANGES_ALL,
        stream=JStream(subjects.TABLE_SEATS_STREAM, declare=False),
        durable=config.consumer,
        inbox_prefix=pull_inbox(broker),
        deliver_policy=DeliverPolicy.NEW,
        # what the stream has, up to 100 events, in one call: FastStream's per-message dispatch
        # (a task group and a thread-pool hop each) was most of chat's CPU, for events of which
        # only the seat changes matter
        pull_sub=PullSub(batch_size=100, timeout=1.0, batch=True),
        ack_policy=AckPolicy.NACK_ON_ERROR,
        title="table seat events -> chat membership",
    )
    async def on_table_events(msg: NatsMessage) -> None:
        """Who sits where, from the table's own events, in stream order (an older event of a table
        never undoes a newer one, so a batch redelivered after a Redis failure changes nothing
        twice); a Redis failure nacks the batch for redelivery."""
        for body in cast(list[bytes], msg.body):  # a batch's body is its raw bodies (FastStream types it bytes)
            try:
                ev = TableEvent.model_validate_json(body)
            except ValidationError:
                log.warning("unreadable table event dropped")
                continue
            if ev.kind in SEATS_EMPTIED:
                await store.empty(ev.table_id, ev.seq)
            elif (ev.kind in SEAT_TAKEN or ev.kind in SEAT_FREED) and ev.participant_id:
                await store.seat(ev.table_id, ev.participant_id, ev.seq, seated=ev.kind in SEAT_TAKEN)
