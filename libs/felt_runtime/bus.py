"""The bus: broker factory, the request/reply client helper and the responder decorator.

Every request/reply handler is registered with `responder` and served on a plain nats-py
queue subscription of the broker's connection (`Responders`), with the concurrency its
service states: it validates the raw body itself (malformed input gets a `malformed` error,
not silence), turns exceptions into error replies, and runs without FastStream's per-message
task group, thread-pool hop and middlewares (about 2.5x the CPU per hand over the services,
docs/architecture.md, "The bus"). FastStream serves what it does better: the JetStream
consumers and event subscribers, the connection and the AsyncAPI document.
"""

from __future__ import annotations

import asyncio
import inspect
import functools
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from faststream.nats import NatsBroker
from nats.aio.msg import Msg
from nats.errors import NoRespondersError
from pydantic import BaseModel, ValidationError

from felt_contracts.base import ErrorInfo, Reply, Request
from felt_contracts.errors import ErrorCode
from felt_runtime import natsfix
from felt_runtime.logs import CORRELATION
from felt_runtime.metrics import CALLS, HANDLED

log = logging.getLogger("felt.bus")
natsfix.install()  # every service's pull consumers, before any subscribes

RequestT = TypeVar("RequestT", bound=Request)
ResultT = TypeVar("ResultT", bound=BaseModel)

#: subject -> (request model, result model) of every responder (and raw-body event consumer)
#: registered in this process: the AsyncAPI writer documents the bodies from it.
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

    def info(self) -> ErrorInfo:
        """The refusal as a reply carries it."""
        return ErrorInfo(code=self.code, message=self.message, details=self.details)

    @classmethod
    def of(cls, info: ErrorInfo) -> BusError:
        """The refusal a reply carried, as a new exception (no traceback of where it was made)."""
        return cls(info.code, info.message, **info.details)


def declare_contract(subject: str, model: type[BaseModel], reply: Any = None) -> None:
    """Record the model a raw-body subscriber (e.g. an event consumer) receives, for the docs."""
    CONTRACTS[subject] = (model, reply)


def make_broker(nats_url: str, service: str, **options: Any) -> NatsBroker:
    """A NATS broker that names its connection after the service (visible in `nats-server`
    monitoring). FastStream's own lines go through the service's JSON logging, and its two lines
    per message ("Received", "Processed") are DEBUG: at INFO they were most of a service's log
    (chat wrote 120,000 plain-text lines in a 30-minute soak)."""
    return NatsBroker(
        nats_url,
        name=f"felt-{service}",
        logger=logging.getLogger(f"felt.{service}.bus"),
        log_level=logging.DEBUG,
        connect_timeout=3,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,  # type: ignore[arg-type]  # nats-py takes float seconds; FastStream annotates int
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
    concurrency: int,
) -> Callable[[Callable[[RequestT], Awaitable[BaseModel]]], Callable[[RequestT], Awaitable[BaseModel]]]:
    """Register `handler(request) -> result` as the request/reply handler of `subject`, served
    on a plain nats-py queue subscription of the broker's connection (`Responders`).

    The reply is always a `Reply`: the result, or an error with a stable code.

    `concurrency` is how many of the subject's handlers run at once in this process: 1 runs
    them strictly one at a time, in arrival order (for a handler that relies on it); more lets
    one slow request not hold up the others. Each service states it where it registers a
    handler, after what its handlers allow. The subscription opens at the end of the service's
    startup hooks (`ServiceContext.startup`) and drains at the start of its shutdown hooks.
    """
    if concurrency < 1:
        raise ValueError(f"{subject}: concurrency must be at least 1, not {concurrency}")

    def decorate(handler: Callable[[RequestT], Awaitable[BaseModel]]) -> Callable[[RequestT], Awaitable[BaseModel]]:
        result_model = get_type_hints(handler).get("return")
        declare_contract(subject, request_model, result_model)
        title = f"{subject}:{handler.__name__}"
        responders(broker).add(
            Route(subject, queue, request_model, handler, title, inspect.getdoc(handler), concurrency)
        )
        return handler

    return decorate


@dataclass(frozen=True)
class Route:
    """One responder: what `Responders` subscribes and what the AsyncAPI document lists."""

    subject: str
    queue: str
    request_model: type[Request]
    handler: Callable[[Any], Awaitable[BaseModel]]
    title: str
    description: str | None
    concurrency: int


#: How long shutdown waits for handlers in flight before cancelling them.
DRAIN_SECONDS = 10.0


class Responders:
    """The responders of one broker, on plain nats-py queue subscriptions.

    - Each message is answered by its own task, started in arrival order; a semaphore per
      subject bounds the handlers in flight (`concurrency`). When it is full, the
      subscription's delivery waits: messages queue in nats-py's pending buffer (bounded by
      nats-py's default limits; past them nats-py drops messages as a slow consumer and their
      callers see `unavailable`, which they may retry with the same ids).
    - Replies are the `Reply` envelope `dispatch` makes, with the request's `correlation_id`
      header echoed.
    - `stop` drains: it tells the server to stop delivering, answers everything already
      delivered, waits up to `drain_seconds` for handlers in flight (then cancels them: the
      callers time out and retry), and flushes the replies - all before the broker closes.
    """

    def __init__(self, broker: Any) -> None:
        self.broker = broker
        self.routes: dict[str, Route] = {}
        self._subs: list[Any] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._nc: Any = None
        self._started = False
        self.drain_seconds = DRAIN_SECONDS

    def add(self, route: Route) -> None:
        if route.subject in self.routes:
            raise ValueError(f"{route.subject} already has a responder")
        if self._started:
            raise RuntimeError(f"{route.subject}: responders must be registered before startup")
        self.routes[route.subject] = route

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def start(self) -> None:
        """Subscribe every route on the broker's connection (connecting it if needed)."""
        if self._started or not self.routes:
            return
        nc = self._nc = await self.broker.connect()
        for route in self.routes.values():
            self._subs.append(await nc.subscribe(route.subject, queue=route.queue, cb=self._callback(route, nc)))
        self._started = True

    def _callback(self, route: Route, nc: Any) -> Callable[[Msg], Awaitable[None]]:
        slots = asyncio.Semaphore(route.concurrency)
        loop = asyncio.get_running_loop()
        handler, model = route.handler, route.request_model

        async def serve(msg: Msg) -> None:
            try:
                reply = await dispatch(handler, model, msg.data)
                if msg.reply:
                    headers = {"content-type": "application/json"}
                    correlation_id = msg.headers.get("correlation_id") if msg.headers else None
                    if correlation_id:
                        headers["correlation_id"] = correlation_id
                    await nc.publish(msg.reply, reply.model_dump_json().encode(), headers=headers)
            except Exception:  # no reply: the caller times out and retries with the same ids
                log.exception("reply failed", extra={"subject": route.subject})
            finally:
                slots.release()

        async def on_msg(msg: Msg) -> None:
            await slots.acquire()  # full: delivery of this subscription waits (backpressure)
            task = loop.create_task(serve(msg))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return on_msg

    async def stop(self) -> None:
        """Stop taking messages, answer the ones delivered and in flight, flush the replies."""
        timeout = self.drain_seconds
        deadline = time.monotonic() + timeout
        subs, self._subs = self._subs, []
        self._started = False

        async def drain(sub: Any) -> None:
            try:
                await sub.drain()
            except Exception:  # noqa: BLE001 - connection already closed: nothing left to drain
                pass

        if subs:
            try:
                await asyncio.wait_for(asyncio.gather(*(drain(sub) for sub in subs)), timeout)
            except TimeoutError:
                pass
        if self._tasks:
            _, pending = await asyncio.wait(list(self._tasks), timeout=max(0.0, deadline - time.monotonic()))
            for task in pending:
                task.cancel()
            if pending:
                log.warning("cancelled handlers still running at shutdown", extra={"count": len(pending)})
        nc, self._nc = self._nc, None
        if nc is not None and nc.is_connected:
            try:
                await nc.flush(timeout=2)
            except Exception:  # noqa: BLE001 - best effort; the broker closes next
                pass


_RESPONDERS: weakref.WeakKeyDictionary[Any, Responders] = weakref.WeakKeyDictionary()


def responders(broker: Any) -> Responders:
    """The responders registered on `broker` (`ServiceContext` starts and stops them)."""
    found = _RESPONDERS.get(broker)
    if found is None:
        found = _RESPONDERS[broker] = Responders(broker)
    return found


async def dispatch(
    handler: Callable[[RequestT], Awaitable[BaseModel]], request_model: type[RequestT], body: bytes
) -> Reply[Any]:
    """Validate `body`, run the handler (under the request's correlation id), and wrap the
    outcome in a `Reply`; the time it took goes to `felt_bus_handled_seconds`."""
    started = time.perf_counter()
    name = request_model.__name__
    try:
        request = request_model.model_validate_json(body)
    except ValidationError as exc:
        HANDLED.labels(name, "malformed").observe(time.perf_counter() - started)
        return Reply.failure(ErrorCode.MALFORMED, f"invalid {request_model.__name__}", errors=validation_details(exc))
    token = CORRELATION.set(request.correlation_id)
    outcome = "ok"
    try:
        return Reply.success(await handler(request))
    except BusError as exc:
        outcome = exc.code.value
        return Reply.failure(exc.code, exc.message, **exc.details)
    except Exception:
        outcome = "internal"
        log.exception("handler failed", extra={"correlation_id": request.correlation_id})
        return Reply.failure(ErrorCode.INTERNAL, "internal error", correlation_id=request.correlation_id)
    finally:
        took = time.perf_counter() - started
        HANDLED.labels(name, outcome).observe(took)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("handled %s", name, extra={"outcome": outcome, "ms": round(took * 1000, 2)})
        CORRELATION.reset(token)


@functools.cache
def reply_model(result_model: type[ResultT]) -> type[Reply[ResultT]]:
    """`Reply[result_model]`, built once (pydantic re-derives a generic on every subscript)."""
    return Reply[result_model]  # type: ignore[valid-type]  # a subscript with a runtime class, as pydantic allows


async def call(
    broker: NatsBroker, subject: str, request: Request, result_model: type[ResultT], *, timeout: float = 5.0
) -> ResultT:
    """Send `request` and return the typed result, or raise `BusError` with the reply's code.

    No answer in time (or nobody listening) is `unavailable`: the caller may retry with the
    same `message_id` and the owner returns the first outcome. Sent on the broker's nats-py
    connection: FastStream's request path (middlewares, a JSON round trip through dicts)
    cost more CPU per call than a table's own work for a step.

    A request made while serving an action (`CORRELATION` set) and given no correlation id
    of its own carries the action's. Outcomes count in `felt_bus_calls` (ok, the error code,
    `timeout`).
    """
    cid = CORRELATION.get()
    if cid is not None and "correlation_id" not in request.model_fields_set:
        request = request.model_copy(update={"correlation_id": cid})
    name = type(request).__name__
    headers = {"content-type": "application/json", "correlation_id": request.correlation_id}
    try:
        msg = await broker.connection.request(
            subject, request.model_dump_json().encode(), timeout=timeout, headers=headers
        )
    except (TimeoutError, NoRespondersError) as exc:
        CALLS.labels(name, "timeout").inc()
        raise BusError(ErrorCode.UNAVAILABLE, f"no reply on {subject} within {timeout}s") from exc
    reply = reply_model(result_model).model_validate_json(msg.data)
    if not reply.ok:
        assert reply.error is not None
        CALLS.labels(name, reply.error.code.value).inc()
        raise BusError.of(reply.error)
    CALLS.labels(name, "ok").inc()
    assert reply.result is not None
    return reply.result
