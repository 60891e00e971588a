"""A post refused as "not a member" is judged again once chat has applied the seat events the
stream held, even when the event it lacked was applied between the refusal and that look: on a
busy machine a player's join was answered and their first chat line refused (the post was
refused, the `seated` event applied, and catching up then found nothing behind).

The chat handlers run in this process against a real NATS (its own, so no other chat process
answers) and a real Redis; the store is the real one, told to let the seat event land exactly
in that gap."""

from __future__ import annotations

import uuid
from pathlib import Path

from faststream.nats import NatsBroker
from redis.asyncio import Redis

from felt_chat import handlers
from felt_chat.settings import ChatSettings
from felt_chat.store import ChatStore, Forbidden, Stored
from felt_contracts import subjects
from felt_contracts.base import Request
from felt_contracts.chat import ChatPost, ChatPosted
from felt_runtime.bus import call, responders
from felt_runtime.redis import make_redis
from felt_runtime.streams import TABLE_SEATS, ensure
from tests.chat.test_chat import TableEvents
from tests.support.servers import nats_server
from tests.support.waiting import eventually


class SeatLandsAfterTheRefusal(ChatStore):
    """The real store; its first refusal waits until the table's `seated` event, published then,
    is applied by chat's consumer, and only then reports the refusal."""

    def __init__(self, redis: Redis, prefix: str, js) -> None:
        super().__init__(redis, prefix, max_messages=5, window_ms=10_000, history_size=100, record_ttl_s=60)
        self.js = js
        self.refusals = 0

    async def post(self, request: Request, participant_id: str, table_id: str, message: dict[str, str]) -> Stored:
        try:
            return await super().post(request, participant_id, table_id, message)
        except Forbidden:
            self.refusals += 1
            if self.refusals == 1:
                await TableEvents(self.js, table_id).send(1, "seated", participant_id)
                await eventually(lambda: self.redis.hget(self._seats(table_id), participant_id), what="seat applied")
            raise


async def test_a_seat_applied_between_the_refusal_and_the_look_lets_the_post_in(tmp_path: Path, redis_url: str) -> None:
    table_id, player = f"t-{uuid.uuid4().hex[:10]}", f"p-{uuid.uuid4().hex[:10]}"
    with nats_server(tmp_path) as nats_url:
        broker = NatsBroker(nats_url)
        await broker.connect()
        js = broker.config.connection_state.stream
        await ensure(js, TABLE_SEATS)
        redis = make_redis(redis_url)
        store = SeatLandsAfterTheRefusal(redis, f"race-{uuid.uuid4().hex[:8]}", js)
        handlers.register(broker, store, ChatSettings(consumer=f"race-{uuid.uuid4().hex[:8]}"))
        await broker.start()
        await responders(broker).start()
        try:
            posted = await call(
                broker,
                subjects.CHAT_POST,
                ChatPost(table_id=table_id, participant_id=player, display_name="Ann", text="just sat down"),
                ChatPosted,
            )
            assert posted.message.text == "just sat down" and store.refusals == 1
        finally:
            await responders(broker).stop()
            await broker.stop()
            await redis.aclose()
