"""A gateway's memory per watched table is its feed's kept events: an operator sets how many
(`FELT_GATEWAY_FEED_KEEP_EVENTS`), and a reader behind what is kept is sent to the table."""

from __future__ import annotations

from datetime import UTC, datetime

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
    assert not kept.fetch and [e["seq"] for _, e, _ in kept.entries] == [5, 6, 7]


def test_the_number_kept_is_a_setting(monkeypatch) -> None:
    assert GatewaySettings().feed_keep_events == 2048
    monkeypatch.setenv("FELT_GATEWAY_FEED_KEEP_EVENTS", "256")
    assert GatewaySettings().feed_keep_events == 256
