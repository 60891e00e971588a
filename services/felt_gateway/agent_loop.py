"""The agents' loop — long-poll the events, act on a turn — answered by a plain ASGI layer ahead of
FastAPI's stack.

Why: these two are most of the gateway's requests, and FastAPI's and Starlette's middlewares,
routers and dependency solving around them cost more than the work. A long-poll held through
that stack is twice the coroutines, with their closures and contexts, and in a busy gateway the
pending ones are most of the young objects the garbage collector walks while every request in
flight waits; FastAPI's routing around an action costs more than the action's own work. Here
they call the routes' own functions (`poker.events`, `poker.act`) with the same validation
models, and answer errors as FastAPI's handlers do (`errors.response_for`). FastAPI's routes stay
the endpoints' definition: the OpenAPI entries, and the answer to every request this layer
declines — a query or a body that fails validation (FastAPI's 400 / 422), another content type,
an over-long `Idempotency-Key`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import orjson
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import compile_path

from felt_gateway import errors, poker
from felt_gateway.auth import principal
from felt_gateway.identity import Principal
from felt_gateway.commands import KEY_MAX_LENGTH
from felt_gateway.schemas import ActionBody, EventsQuery

#: a body larger than this is not an action: FastAPI answers it
MAX_BODY = 64 * 1024

Message = dict[str, Any]
Answer = Callable[[Request, Principal], Awaitable[Response]]


class AgentLoop:
    """Plain ASGI, inside `Correlate` and ahead of FastAPI's exception middleware and router."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.events = compile_path(poker.EVENTS_PATH)[0]  # as Starlette's router matches them
        self.actions = compile_path(poker.ACTIONS_PATH)[0]

    async def __call__(self, scope: Message, receive: Any, send: Any) -> None:
        answer: Answer | None = None
        if scope["type"] == "http" and scope["method"] == "GET" and (match := self.events.match(scope["path"])):
            answer = _long_poll(scope, match["table_id"])
        elif scope["type"] == "http" and scope["method"] == "POST" and (match := self.actions.match(scope["path"])):
            answer, receive = await _action(scope, receive, match["table_id"])
        if answer is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        response: Response
        try:
            response = await answer(request, await principal(request))
        except Exception as exc:  # noqa: BLE001 - every error, answered as FastAPI's handlers answer it
            response = await errors.response_for(exc)
        await response(scope, receive, send)


def _long_poll(scope: Message, table_id: str) -> Answer | None:
    """The query as FastAPI reads it (the last of repeated names), or None when it fails validation."""
    pairs = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
    try:
        query = EventsQuery.model_validate(dict(pairs))
    except ValidationError:
        return None
    return lambda request, who: poker.events(request, table_id, who, query)


async def _action(scope: Message, receive: Any, table_id: str) -> tuple[Answer | None, Any]:
    """The action and the connection's `receive`, or None and a `receive` that hands FastAPI the
    body read here before anything more: a request FastAPI must judge."""
    headers = dict(scope["headers"][::-1])  # the first of repeated names, as Starlette's `Headers.get`
    key = headers.get(b"idempotency-key")
    idempotency_key = key.decode("latin-1") if key is not None else None
    content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if content_type != b"application/json" or len(idempotency_key or "") > KEY_MAX_LENGTH:
        return None, receive
    read: list[Message] = []
    size = 0
    while not read or read[-1].get("more_body", False):
        read.append(await receive())
        size += len(read[-1].get("body", b""))
        if read[-1]["type"] != "http.request" or size > MAX_BODY:
            return None, _replay(read, receive)
    try:
        action = ActionBody.model_validate(orjson.loads(b"".join(m.get("body", b"") for m in read)))
    except (orjson.JSONDecodeError, ValidationError):
        return None, _replay(read, receive)
    return lambda request, who: poker.act(request, table_id, action, who, idempotency_key), receive


def _replay(read: list[Message], receive: Any) -> Callable[[], Awaitable[Message]]:
    """`receive` again from the start: the messages already read, then the connection's own."""
    pending = list(read)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay
