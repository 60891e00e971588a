"""The bus: broker factory, the request/reply client helper and the responder decorator.

A FastStream handler that raises sends no reply and its caller times out, so every bus
handler goes through `responder`: it validates the raw body itself (malformed input gets a
`malformed` error, not silence) and turns exceptions into error replies.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, get_type_hints

from faststream.nats import NatsBroker, NatsMessage
from nats.errors import NoRespondersError
from pydantic import BaseModel, ValidationError

from felt_contracts.base import Reply, Request
from felt_contracts.errors import ErrorCode

log = logging.getLogger("felt.bus")

RequestT = TypeVar("RequestT", bound=Request)
ResultT = TypeVar("ResultT", bound=BaseModel)

#: subject -> (request model, result model) of every responder registered in this process;
#: the AsyncAPI writer uses it because handlers take raw bodies (see `responder`).
CONTRACTS: dict[str, tuple[type[BaseModel], Any]] = {}


class BusError(Exception):
    """A refusal with a stable code; raised by handlers and by `call` on error replies."""

    def __init__(self, code: ErrorCode | str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"BusError({self.code.value!r}, {self.message!r}, {self.details!r})"


def declare_contract(subject: str, model: type[BaseModel], reply: Any = None) -> None:
    """Record the model a raw-body subscriber (e.g. an event consumer) receives, for the docs."""
    CONTRACTS[subject] = (model, reply)


def make_broker(nats_url: str, service: str, **options: Any) -> NatsBroker:
    """A NATS broker that names its connection after the service (visible in `nats-server` monitoring)."""
    return NatsBroker(
        nats_url,
        name=f"felt-{service}",
        connect_timeout=3,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,
        **options,
    )


def validation_details(exc: ValidationError) -> list[dict[str, Any]]:
    """Validation errors as JSON-safe dicts (location, message), without echoing input."""
    return [{"loc": [str(p) for p in e["loc"]], "msg": e["msg"], "type": e["type"]} for e in exc.errors()]


def responder(
    broker: Any,
    subject: str,
    request_model: type[RequestT],
    *,
    queue: str,
    **subscriber_options: Any,
) -> Callable[[Callable[[RequestT], Awaitable[BaseModel]]], Callable[[RequestT], Awaitable[BaseModel]]]:
    """Register `handler(request) -> result` as a request/reply handler on `subject`.

    The reply is always a `Reply`: the result, or an error with a stable code.
    """

    def decorate(handler: Callable[[RequestT], Awaitable[BaseModel]]) -> Callable[[RequestT], Awaitable[BaseModel]]:
        async def on_message(msg: NatsMessage) -> dict[str, Any]:
            return (await dispatch(handler, request_model, msg.body)).model_dump(mode="json")

        on_message.__name__ = handler.__name__
        declare_contract(subject, request_model, get_type_hints(handler).get("return"))
        on_message.__doc__ = handler.__doc__
        broker.subscriber(subject, queue=queue, title=f"{subject}:{handler.__name__}", **subscriber_options)(
            on_message
        )
        return handler

    return decorate


async def dispatch(
    handler: Callable[[RequestT], Awaitable[BaseModel]], request_model: type[RequestT], body: bytes
) -> Reply[Any]:
    """Validate `body`, run the handler, and wrap the outcome in a `Reply`."""
    try:
        request = request_model.model_validate_json(body)
    except ValidationError as exc:
        return Reply.failure(
            ErrorCode.MALFORMED, f"invalid {request_model.__name__}", errors=validation_details(exc)
        )
    try:
        return Reply.success(await handler(request))
    except BusError as exc:
        return Reply.failure(exc.code, exc.message, **exc.details)
    except Exception:
        log.exception("handler failed", extra={"correlation_id": request.correlation_id})
        return Reply.failure(ErrorCode.INTERNAL, "internal error", correlation_id=request.correlation_id)


async def call(
    broker: NatsBroker, subject: str, request: Request, result_model: type[ResultT], *, timeout: float = 5.0
) -> ResultT:
    """Send `request` and return the typed result, or raise `BusError` with the reply's code.

    No answer in time (or nobody listening) is `unavailable`: the caller may retry with the
    same `message_id` and the owner returns the first outcome.
    """
    try:
        msg = await broker.request(
            request.model_dump(mode="json"),
            subject,
            timeout=timeout,
            correlation_id=request.correlation_id,
        )
    except (TimeoutError, NoRespondersError) as exc:
        raise BusError(ErrorCode.UNAVAILABLE, f"no reply on {subject} within {timeout}s") from exc
    reply = Reply[result_model].model_validate_json(msg.body)  # type: ignore[valid-type]
    if not reply.ok:
        assert reply.error is not None
        raise BusError(reply.error.code, reply.error.message, **reply.error.details)
    assert reply.result is not None
    return reply.result
