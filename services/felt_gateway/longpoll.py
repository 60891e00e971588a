"""The agents' long-poll (`GET .../tables/{table_id}/events`): the wait itself, and a plain ASGI
layer that answers it ahead of FastAPI's stack.

Why the layer: at 2,000 seated ~700 long-polls are pending at any moment, and one held through
FastAPI's and Starlette's middlewares and routers is a stack of 22 coroutines with their closures
and contexts. Those are most of the young objects the gateway's garbage collector walks, in stops
of 50-180 ms that every request in flight waits out (docs/benchmarks.md, "The gateway's garbage
collector at 2,000 seated"). Answered here, a pending long-poll is a few coroutines. FastAPI's
route stays the endpoint's definition: it is the OpenAPI entry, and it answers every request this
layer declines (a query that fails `EventsQuery` gets FastAPI's own 422).
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any
from urllib.parse import parse_qsl

import orjson
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from felt_contracts.table import HAND_BOUNDARIES
from felt_gateway import errors
from felt_gateway.auth import principal
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


class LongPolls:
    """Plain ASGI, inside `Correlate` and ahead of FastAPI's exception middleware and router:
    a `GET` of `path` (the route's template) whose query passes `EventsQuery` is authenticated
    and answered here, with the error responses FastAPI's handlers give (`errors.response_for`);
    anything else goes on to FastAPI."""

    def __init__(self, app: Any, path: str) -> None:
        self.app = app
        self.path = re.compile("^" + re.escape(path).replace(re.escape("{table_id}"), "([^/]+)") + "$")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        match = self.path.match(scope["path"]) if scope["type"] == "http" and scope["method"] == "GET" else None
        query = self._query(scope) if match is not None else None
        if match is None or query is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        response: Response
        try:
            response = await long_poll(request, await principal(request), match[1], query)
        except Exception as exc:  # noqa: BLE001 - every error, answered as FastAPI's handlers answer it
            response = await errors.response_for(exc)
        await response(scope, receive, send)

    @staticmethod
    def _query(scope: dict[str, Any]) -> EventsQuery | None:
        """The query as FastAPI reads it (the last of repeated names), or None when it fails
        validation: FastAPI then answers with its 422."""
        pairs = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        try:
            return EventsQuery.model_validate(dict(pairs))
        except ValidationError:
            return None
