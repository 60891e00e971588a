"""The outbox relay: publish committed transfer events to JetStream, then delete them.

Rows are written in the same transaction as their transfers, so a crash never splits a
state change from its event. After a crash rows may be published again; the stream drops
them because the header `Nats-Msg-Id` is the transfer id (duplicate window: 10 minutes).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import sqlalchemy as sa
from nats.js import JetStreamContext
from nats.js.api import StreamConfig
from nats.js.errors import BadRequestError
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects
from felt_wallet.store import outbox
from felt_wallet.writer import Writer

log = logging.getLogger("felt.wallet.outbox")
DUPLICATE_WINDOW = timedelta(minutes=10)


async def ensure_stream(js: JetStreamContext) -> None:
    """Create the wallet event stream, or leave it be if it already exists."""
    config = StreamConfig(
        name=subjects.WALLET_EVENTS_STREAM,
        subjects=[subjects.WALLET_TRANSFER_EVENTS],
        duplicate_window=DUPLICATE_WINDOW.total_seconds(),
    )
    try:
        await js.add_stream(config)
    except BadRequestError:
        await js.update_stream(config)


async def relay(engine: AsyncEngine, js: JetStreamContext, writer: Writer, batch: int = 500) -> None:
    last = 0
    while True:
        try:
            writer.committed.clear()
            async with engine.connect() as conn:
                rows = (await conn.execute(
                    sa.select(outbox.c.seq, outbox.c.transfer_id, outbox.c.payload)
                    .where(outbox.c.seq > last).order_by(outbox.c.seq).limit(batch)
                )).all()
            if not rows:
                try:
                    await asyncio.wait_for(writer.committed.wait(), timeout=1.0)
                except TimeoutError:
                    pass
                continue
            await asyncio.gather(*(
                js.publish(subjects.WALLET_TRANSFER_EVENTS, payload.encode(), headers={"Nats-Msg-Id": tid})
                for _, tid, payload in rows
            ))
            last = rows[-1][0]
            writer.ack_outbox([r[0] for r in rows])
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - NATS or DB hiccup: retry (duplicates are dropped)
            log.exception("outbox relay failed; retrying")
            last = 0
            await asyncio.sleep(0.5)
