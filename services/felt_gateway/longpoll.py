"""The agents' long-poll (`GET .../tables/{table_id}/events`): the wait, for FastAPI's route and
for the agent loop's own ASGI layer (`agent_loop.AgentLoop`), which answers most of them."""

from __future__ import annotations

import asyncio
import time

import orjson
from starlette.requests import Request

from felt_contracts.table import HAND_BOUNDARIES
from felt_gateway.clients import check_table_id
from felt_gateway.hub import Hub, next_events
from felt_gateway.identity import Principal
from felt_gateway.jsonio import Json
from felt_gateway.schemas import EventsQuery


async def long_poll(request: Request, who: Principal, table_id: str, query: EventsQuery) -> Json:
    """Events with `seq > after` for `who`, waiting up to `wait` seconds (capped by the gateway's
    setting) for something to happen; with `wake=mine`, until one is `who`'s alone or a hand ends.
    The events are the hub's serialized copies, embedded as they are (no validation against
    `EventsOut`; tests/gateway/test_zz_openapi.py checks the shape)."""
    check_table_id(table_id)
    state = request.app.state
    hub: Hub = state.hub
    me = who.participant_id
    signal = asyncio.Event()
    deadline = time.monotonic() + min(query.wait, state.gw.longpoll_max_seconds)
    feed = await hub.watch(table_id, signal)  # subscribed before anything is fetched
    known = False  # an unknown table's feed closes at once (no 30 s linger per probe)
    found: list[orjson.Fragment] = []  # events read so far (wake=mine keeps them until one is mine)
    woken = query.wake == "any"
    cursor = query.after
    try:
        await state.chat_members.watched(table_id, me)
        while True:
            signal.clear()
            batch = await next_events(feed, state.bus, me, cursor, query.limit - len(found))
            known = known or batch.asked
            found += (orjson.Fragment(e.event) for e in batch.events)
            woken = woken or any(e.private or e.kind in HAND_BOUNDARIES for e in batch.events)
            cursor = batch.last
            if found and (woken or len(found) >= query.limit):
                break
            if batch.more:
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                async with asyncio.timeout(min(remaining, 0.25) if batch.behind else remaining):
                    await signal.wait()
            except TimeoutError:
                pass
    finally:
        hub.unwatch(feed, signal, linger=known or feed.top is not None)
    return Json({"tableId": table_id, "after": query.after, "lastSeq": cursor, "events": found})
