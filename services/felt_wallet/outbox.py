"""The outbox relay: publish committed transfer events to JetStream, then delete them.

Rows are written in the same transaction as their transfers, so a crash never splits a
state change from its event. After a crash rows may be published again; the stream drops
them because the header `Nats-Msg-Id` is the transfer id (duplicate window: 10 minutes).
"""

from __future__ import annotations

import asyncio
import logging

import sqlalchemy as sa
from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects
from felt_wallet.store import outbox
from felt_wallet.writer import Writer

log = logging.getLogger("felt.wallet.outbox")


async def relay(engine: AsyncEngine, js: JetStreamContext, writer: Writer, batch: int = 500) -> None:
    last = 0
    while True:
        try:
            writer.committed.clear()
            async with engine.connect() as conn:
                rows = (
                    await conn.execute(
                        sa.select(outbox.c.seq, outbox.c.transfer_id, outbox.c.payload)
                        .where(outbox.c.seq > last)
                        .order_by(outbox.c.seq)
                        .limit(batch)
                    )
                ).all()
            if not rows:
                try:
                    await asyncio.wait_for(writer.committed.wait(), timeout=1.0)
                except TimeoutError:
                    pass
                continue
            await asyncio.gather(
                *(
                    js.publish(subjects.WALLET_TRANSFER_EVENTS, payload.encode(), headers={"Nats-Msg-Id": tid})
                    for _, tid, payload in rows
                )
            )
            last = rows[-1][0]
            writer.ack_outbox([r[0] for r in rows])
        except asyncio.CancelledError:
            raise
        except Exception:  # NATS or DB hiccup: retry (duplicates are dropped)
            log.exception("outbox relay failed; retrying")
            last = 0
            await asyncio.sleep(0.5)
