"""The room's JetStream streams, declared once. The service that owns a stream creates or
updates it at start; a reader that may start first (limits reads the wallet's transfers)
creates it only if it is missing and otherwise leaves it exactly as it is.

Both are a service's first JetStream requests, made while the whole room starts at once: a
JetStream that does not answer in time (a server still starting, or starved by a machine busy
starting every service) is asked again for `PATIENCE_SECONDS` before the service gives up, where
one timeout used to stop the start (seen on a slow 2-core machine: chat exited with 3)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import StreamConfig
from nats.js.errors import BadRequestError, NotFoundError, ServiceUnavailableError

from felt_contracts import subjects

log = logging.getLogger("felt.runtime.streams")

#: seconds a starting service keeps asking a JetStream that does not answer
PATIENCE_SECONDS = 60.0

#: the wallet's transfer events (limits counts them), kept a week (FELT_WALLET_EVENTS_MAX_AGE_SECONDS);
#: duplicates within 10 minutes are dropped
WALLET_EVENTS = StreamConfig(
    name=subjects.WALLET_EVENTS_STREAM,
    subjects=[subjects.WALLET_TRANSFER_EVENTS],
    duplicate_window=600.0,
    max_age=7 * 86400.0,
)
#: every table's seat changes, kept a week (FELT_TABLE_EVENTS_MAX_AGE_SECONDS)
TABLE_SEATS = StreamConfig(
    name=subjects.TABLE_SEATS_STREAM,
    subjects=[subjects.TABLE_SEAT_CHANGES_ALL],
    duplicate_window=120.0,
    max_age=7 * 86400.0,
)


async def _answered(ask: Callable[[], Awaitable[None]], name: str | None) -> None:
    """`ask` again while JetStream does not answer (a timeout, or no responder yet), for
    `PATIENCE_SECONDS`; each request is idempotent."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while True:
        try:
            return await ask()
        except (NatsTimeout, ServiceUnavailableError) as exc:
            if time.monotonic() >= deadline:
                raise
            log.warning("JetStream did not answer for stream %s (%s); asking again", name, type(exc).__name__)
            await asyncio.sleep(0.5)


async def declare(js: JetStreamContext, config: StreamConfig) -> None:
    """The owner: create the stream, or bring an existing one to this configuration."""
    await _answered(lambda: _declare(js, config), config.name)


async def _declare(js: JetStreamContext, config: StreamConfig) -> None:
    try:
        await js.add_stream(config)
    except BadRequestError:
        await js.update_stream(config)


async def retire(js: JetStreamContext, name: str) -> None:
    """The owner: delete a stream it no longer keeps (absent already: nothing to do)."""
    try:
        await js.delete_stream(name)
    except NotFoundError:
        pass


async def ensure(js: JetStreamContext, config: StreamConfig) -> None:
    """A reader: create the stream if it does not exist (the owner's configuration wins later)."""
    await _answered(lambda: _ensure(js, config), config.name)


async def _ensure(js: JetStreamContext, config: StreamConfig) -> None:
    assert config.name is not None, "a stream is named by its config"
    try:
        await js.stream_info(config.name)
        return
    except NotFoundError:
        pass
    try:
        await js.add_stream(config)
    except BadRequestError:  # created meanwhile by its owner
        await js.stream_info(config.name)
