"""The durable JetStream consumer of the wallet's transfer events."""

from __future__ import annotations

import asyncio
import logging

import nats
from nats.js.api import StreamConfig
from nats.js.errors import NotFoundError
from nats.errors import Error as NatsError

from felt_contracts import subjects

log = logging.getLogger("felt.limits.events")


async def ensure_stream(nats_url: str, attempts: int = 20) -> None:
    """Create the wallet's event stream if it does not exist yet (same name and subject the
    wallet uses). An existing stream is left exactly as it is, whoever created it."""
    last: Exception | None = None
    for _ in range(attempts):
        try:
            nc = await nats.connect(nats_url, connect_timeout=3, max_reconnect_attempts=1)
        except (OSError, NatsError, TimeoutError) as exc:
            last = exc
            await asyncio.sleep(0.5)
            continue
        try:
            js = nc.jetstream()
            try:
                await js.stream_info(subjects.WALLET_EVENTS_STREAM)
                return
            except NotFoundError:
                pass
            try:
                await js.add_stream(
                    StreamConfig(
                        name=subjects.WALLET_EVENTS_STREAM,
                        subjects=[subjects.WALLET_TRANSFER_EVENTS],
                        duplicate_window=600.0,  # as the wallet declares it (10 minutes)
                    )
                )
                return
            except NatsError as exc:  # created meanwhile by the wallet: fine if it exists now
                last = exc
                try:
                    await js.stream_info(subjects.WALLET_EVENTS_STREAM)
                    return
                except NotFoundError:
                    await asyncio.sleep(0.5)
        finally:
            await nc.close()
    raise RuntimeError(f"cannot create or find stream {subjects.WALLET_EVENTS_STREAM}: {last}")
