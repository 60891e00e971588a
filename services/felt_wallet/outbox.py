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
from felt_wallet.store import OutboxRow, outbox
from felt_wallet.writer import Writer

log = logging.getLogger("felt.wallet.outbox")


async def relay(engine: AsyncEngine, js: JetStreamContext, writer: Writer, batch: int = 500) -> None:
    """Publish the outbox in seq order: the rows the writer hands over as it commits them, and
    the table itself at start (rows an earlier run left) and after a failure (rows that did not
    get out). Reading the table after every commit, through the async driver's thread, was about
    a quarter of the wallet's CPU at human pace."""
    last, from_table = 0, True
    while True:
        try:
            if from_table:
                writer.take_outboxed()  # everything in it is in the table too (committed)
                rows = await _stored(engine, last, batch)
                from_table = len(rows) == batch
            else:
                writer.committed.clear()
                rows = [r for r in writer.take_outboxed() if r[0] > last]
                if not rows:
                    try:
                        await asyncio.wait_for(writer.committed.wait(), timeout=1.0)
                    except TimeoutError:
                        pass
                    continue
            if not rows:
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
        except Exception:  # NATS or DB hiccup: retry from the table (duplicates are dropped)
            log.exception("outbox relay failed; retrying")
            last, from_table = 0, True
            await asyncio.sleep(0.5)


async def _stored(engine: AsyncEngine, after: int, limit: int) -> list[OutboxRow]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            sa.select(outbox.c.seq, outbox.c.transfer_id, outbox.c.payload)
            .where(outbox.c.seq > after)
            .order_by(outbox.c.seq)
            .limit(limit)
        )
        return [(seq, tid, payload) for seq, tid, payload in rows]
