"""The room's JetStream streams, declared once. The service that owns a stream creates or
updates it at start; a reader that may start first (limits reads the wallet's transfers)
creates it only if it is missing and otherwise leaves it exactly as it is."""

from __future__ import annotations

from nats.js import JetStreamContext
from nats.js.api import StreamConfig
from nats.js.errors import BadRequestError, NotFoundError

from felt_contracts import subjects

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


async def declare(js: JetStreamContext, config: StreamConfig) -> None:
    """The owner: create the stream, or bring an existing one to this configuration."""
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
