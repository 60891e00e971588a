"""A gateway's memory per watched table is its feed's kept events: an operator sets how many
(`FELT_GATEWAY_FEED_KEEP_EVENTS`), and a reader behind what is kept is sent to the table."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

import psutil

from felt_contracts import subjects
from felt_contracts.table import TableEvent
from felt_gateway.hub import Feed
from felt_gateway.settings import GatewaySettings


def publish(feed: Feed, seq: int) -> None:
    ev = TableEvent(table_id=feed.table_id, seq=seq, kind="check", at=datetime.now(UTC), seat=1)
    feed.receive(subjects.table_public_events(feed.table_id), ev.model_dump_json().encode())


def test_a_feed_keeps_only_its_last_events_and_sends_older_readers_to_the_table() -> None:
    feed = Feed("t1", keep=3)
    for seq in range(1, 8):
        publish(feed, seq)
    assert [item.seq for item in feed.items] == [5, 6, 7]
    behind = feed.read("p1", after=3)
    assert behind.fetch and behind.entries == []
    kept = feed.read("p1", after=4)
    assert not kept.fetch and [e.seq for e in kept.entries] == [5, 6, 7]


def test_the_number_kept_is_a_setting(monkeypatch) -> None:
    assert GatewaySettings().feed_keep_events == 256
    monkeypatch.setenv("FELT_GATEWAY_FEED_KEEP_EVENTS", "2048")
    assert GatewaySettings().feed_keep_events == 2048


def test_kept_events_are_one_object_each_for_the_garbage_collector() -> None:
    """A full collection walks every tracked object: kept as dicts, each event was several, and
    at 1,000 seated players those collections stopped the gateway for up to 1.3 s."""
    feed = Feed("t1", keep=1000)
    publish(feed, 1)
    gc.collect()
    before = len(gc.get_objects())
    for seq in range(2, 1002):
        ev = TableEvent(
            table_id="t1", seq=seq, kind="hand_end", at=datetime.now(UTC), stacks={"1": 40, "2": 80}, cards=("As",)
        )
        feed.receive(subjects.table_public_events("t1"), ev.model_dump_json().encode())
        feed.receive(
            subjects.table_seat_events("t1", "p1"), ev.model_copy(update={"private": True}).model_dump_json().encode()
        )
    gc.collect()
    assert len(gc.get_objects()) - before <= 2 * 1000 + 50  # the item and its private copies' dict


def test_a_kept_event_costs_about_a_kilobyte_of_memory() -> None:
    """What the setting's documentation promises an operator (`feed_keep_events`): orjson's bytes
    kept whole write buffers (8 KB per event), which took the gateway past 1.9 GB at 1,200 seated."""
    n = 20_000
    feed = Feed("t1", keep=n)
    events = [
        TableEvent(table_id="t1", seq=seq, kind="hand_end", at=datetime.now(UTC), stacks={"1": 40, "2": 80})
        .model_dump_json()
        .encode()
        for seq in range(1, n + 1)
    ]
    before = psutil.Process().memory_info().rss
    for data in events:
        feed.receive(subjects.table_public_events("t1"), data)
    grown = psutil.Process().memory_info().rss - before
    assert len(feed.items) == n and grown / n < 2048
