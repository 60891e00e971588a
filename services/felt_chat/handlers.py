"""Bus handlers of the chat service: post, history, join, leave."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from faststream.nats import NatsBroker
from redis.exceptions import RedisError

from felt_chat.settings import ChatSettings
from felt_chat.store import ChatStore, Forbidden, IdempotencyConflict, Throttled
from felt_chat.text import check_text, clean_display_name
from felt_contracts import subjects
from felt_contracts.base import new_id
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
from felt_runtime.bus import BusError, responder

log = logging.getLogger("felt.chat")
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def store_refusals(handler: F) -> F:
    """Redis trouble is `unavailable`: retry with the same message_id."""

    @functools.wraps(handler)
    async def wrapped(request: Any) -> Any:
        try:
            return await handler(request)
        except (RedisError, OSError) as exc:
            raise BusError(ErrorCode.UNAVAILABLE, f"chat store unavailable ({type(exc).__name__})") from None

    return wrapped  # type: ignore[return-value]


def register(broker: NatsBroker, store: ChatStore, config: ChatSettings) -> None:
    queue = subjects.CHAT_QUEUE

    @responder(broker, subjects.CHAT_POST, ChatPost, queue=queue)
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
            stored = await store.post(req, req.participant_id, req.table_id, message)
        except Forbidden:
            raise BusError(ErrorCode.FORBIDDEN, "only participants seated at or watching the table may chat",
                           table_id=req.table_id, participant_id=req.participant_id) from None
        except Throttled as exc:
            raise BusError(ErrorCode.THROTTLED, "too many chat messages; wait before posting again",
                           retry_after=round(exc.retry_after_ms / 1000, 3), limit=config.max_messages,
                           window_seconds=config.window_seconds) from None
        except IdempotencyConflict:
            raise BusError(ErrorCode.CONFLICT, "message_id was used before for a different post",
                           message_id=req.message_id) from None
        # published again on a retry (the first publish may be what failed); consumers drop
        # repeats by event_id. A failed publish does not fail the post: it is in the history.
        event = ChatMessageEvent(event_id=stored.message.id, correlation_id=req.correlation_id,
                                 table_id=req.table_id, message=stored.message)
        try:
            await broker.publish(event.model_dump(mode="json"), subjects.chat_events(req.table_id))
        except Exception:  # noqa: BLE001 - logged; the message is stored
            log.warning("chat event not published", extra={"correlation_id": req.correlation_id}, exc_info=True)
        return ChatPosted(message=stored.message, duplicate=stored.duplicate)

    @responder(broker, subjects.CHAT_HISTORY, ChatHistory, queue=queue)
    @store_refusals
    async def history(req: ChatHistory) -> ChatHistoryPage:
        """The newest `limit` kept messages of a table before `seq` `before`, oldest first."""
        kept = await store.history(req.table_id)
        if req.before is not None:
            kept = [m for m in kept if m.seq < req.before]
        page = kept[-req.limit:]
        return ChatHistoryPage(table_id=req.table_id, messages=page, has_more=len(kept) > len(page))

    @responder(broker, subjects.CHAT_JOIN, ChatJoin, queue=queue)
    @store_refusals
    async def join(req: ChatJoin) -> ChatMembership:
        """A participant sat down at or watches a table: they may post there."""
        changed = await store.join(req.table_id, req.participant_id)
        return ChatMembership(table_id=req.table_id, participant_id=req.participant_id, member=True, changed=changed)

    @responder(broker, subjects.CHAT_LEAVE, ChatLeave, queue=queue)
    @store_refusals
    async def leave(req: ChatLeave) -> ChatMembership:
        """A participant neither sits at nor watches a table any more: they may not post there."""
        changed = await store.leave(req.table_id, req.participant_id)
        return ChatMembership(table_id=req.table_id, participant_id=req.participant_id, member=False, changed=changed)
