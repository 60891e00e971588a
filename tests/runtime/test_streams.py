"""The room's JetStream streams keep events for the time their owner is configured with
(FELT_WALLET_EVENTS_MAX_AGE_SECONDS, FELT_TABLE_EVENTS_MAX_AGE_SECONDS; a week by default), and
a restart with another value brings the existing stream to it."""

from __future__ import annotations

import asyncio

import nats
import pytest
from nats.js.api import StreamConfig
from nats.js.errors import NotFoundError

from felt_contracts import subjects
from felt_runtime import infra
from felt_runtime.streams import TABLE_SEATS, WALLET_EVENTS, declare, ensure
from tests.support.pausing import paused


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
    assert await max_age(nats_url, subjects.TABLE_SEATS_STREAM) == 7200
    wallet.stop()
    wallet = services.start("wallet", database_url=database_url, felt_wallet_events_max_age_seconds="600")
    assert await max_age(nats_url, subjects.WALLET_EVENTS_STREAM) == 600
    table.stop()


async def test_the_table_retires_the_stream_that_stored_every_event(services, nats_url, database_url) -> None:
    """Every table event used to be captured in JetStream (`felt.evt.table.>`, a week) besides the
    table's own store; now only seat changes are: a table service that starts deletes the old
    stream, so NATS stops writing each event a second time."""
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    try:
        await js.add_stream(StreamConfig(name=subjects.LEGACY_TABLE_EVENTS_STREAM, subjects=["felt.evt.table.>"]))
        services.start("wallet", database_url=database_url)
        services.start("table", database_url=database_url, felt_table_default_tables="false")
        with pytest.raises(NotFoundError):
            await js.stream_info(subjects.LEGACY_TABLE_EVENTS_STREAM)
        seats = await js.stream_info(subjects.TABLE_SEATS_STREAM)
        assert seats.config.subjects == [subjects.TABLE_SEAT_CHANGES_ALL]
    finally:
        await nc.close()


async def test_a_starting_service_asks_a_stalled_jetstream_again(tmp_path) -> None:
    """A JetStream that does not answer in time while the room starts (here a real NATS paused
    with SIGSTOP across two request timeouts, as a starved server is) is asked again: the
    reader's and the owner's first requests wait for it instead of failing the start."""
    server = infra.start_nats(infra.free_port(), tmp_path / "nats", tmp_path / "nats.log")
    nc = await nats.connect(server.url)
    try:
        js = nc.jetstream(timeout=0.3)
        with paused(server.process):
            reader = asyncio.create_task(ensure(js, TABLE_SEATS))
            owner = asyncio.create_task(declare(js, WALLET_EVENTS))
            await asyncio.sleep(1.0)  # more than two request timeouts
            assert not reader.done() and not owner.done()
        await asyncio.wait_for(asyncio.gather(reader, owner), 10)
        assert (await js.stream_info(subjects.TABLE_SEATS_STREAM)).config.subjects == [subjects.TABLE_SEAT_CHANGES_ALL]
        assert (await js.stream_info(subjects.WALLET_EVENTS_STREAM)).config.subjects == [
            subjects.WALLET_TRANSFER_EVENTS
        ]
    finally:
        await nc.close()
        server.stop()
