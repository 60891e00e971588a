"""The room's JetStream streams keep events for the time their owner is configured with
(FELT_WALLET_EVENTS_MAX_AGE_SECONDS, FELT_TABLE_EVENTS_MAX_AGE_SECONDS; a week by default), and
a restart with another value brings the existing stream to it."""

from __future__ import annotations

import nats

from felt_contracts import subjects


async def max_age(nats_url: str, stream: str) -> float:
    nc = await nats.connect(nats_url)
    try:
        return (await nc.jetstream().stream_info(stream)).config.max_age or 0.0
    finally:
        await nc.close()


async def test_each_stream_keeps_events_as_long_as_its_owner_says(services, nats_url, database_url) -> None:
    wallet = services.start("wallet", database_url=database_url)
    table = services.start(
        "table", database_url=database_url, felt_table_default_tables="false", felt_table_events_max_age_seconds="7200"
    )
    assert await max_age(nats_url, subjects.WALLET_EVENTS_STREAM) == 7 * 86400
    assert await max_age(nats_url, subjects.TABLE_EVENTS_STREAM) == 7200
    wallet.stop()
    wallet = services.start("wallet", database_url=database_url, felt_wallet_events_max_age_seconds="600")
    assert await max_age(nats_url, subjects.WALLET_EVENTS_STREAM) == 600
    table.stop()
