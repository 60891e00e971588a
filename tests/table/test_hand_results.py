"""Each dealt player's result of a settled hand is stored with the hand (one transaction) and the
ladder's sums and a match's hands are read back from it, on SQLite and PostgreSQL."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from felt_contracts.ladder import Tally
from felt_runtime.db import create_engine, migrate
from felt_table.ports import results
from felt_table.ports.store import Store, Write


def hand(n: int, nets: dict[str, int], table_id: str = "match-abcdefgh", unit: int = 2) -> dict:
    at = datetime(2030, 1, 1, tzinfo=UTC) + timedelta(minutes=n)
    hand_id = f"{table_id}-{n:016x}"
    rows = [
        {
            "hand_id": hand_id,
            "table_id": table_id,
            "participant_id": pid,
            "opponents": ",".join(sorted(other for other in nets if other != pid)),
            "net": net,
            "unit": unit,
            "ended_at": at,
        }
        for pid, net in nets.items()
    ]
    return {
        "hand_id": hand_id,
        "table_id": table_id,
        "rules_version": "nlhe-1",
        "status": "settled",
        "ended_at": at,
        "participants": "[]",
        "record": "{}",
        "results": rows,
    }


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_results_are_tallied_per_opponents_and_read_in_order(database_url: str) -> None:
    engine = create_engine(database_url)
    await migrate(engine, "felt_table", "table")
    store = Store(engine)
    try:
        for n, nets in enumerate(({"a": 6, "b": -6}, {"a": -2, "b": 2}, {"a": 4, "b": -4})):
            await store.write(Write([], hand(n, nets)))
        await store.write(Write([], hand(9, {"a": -10, "b": 4, "c": 6}, table_id="t3", unit=10)))
        rows = {(r.participant_id, r.opponents): r.tally for r in await results.ladder(engine, None)}
        heads_up = rows[("a", ("b",))]
        assert (heads_up.hands, heads_up.net_chips) == (3, 8)
        assert heads_up.units == pytest.approx(4.0) and heads_up.units_sq == pytest.approx(9 + 1 + 4)
        assert rows[("a", ("b", "c"))].units == pytest.approx(-1.0)
        assert [r.participant_id for r in await results.ladder(engine, "c")] == ["c"]
        assert await results.match_hands(engine, "match-abcdefgh", "a") == [(6, 2), (-2, 2), (4, 2)]
    finally:
        store.close()
        await engine.dispose()


def test_a_tallys_win_rate_is_the_harness_formula() -> None:
    """bb/100 and its 95% half-width over mirrored pairs, as `felt_bots.harness.match` reports them."""
    pairs = [3.0, -1.5, 0.5, 8.0, -2.0]
    tally = Tally(hands=2 * len(pairs), units=sum(pairs), units_sq=sum(p * p for p in pairs))
    mean = sum(pairs) / len(pairs)
    var = sum((p - mean) ** 2 for p in pairs) / (len(pairs) - 1)
    bb_per_100, ci95 = tally.win_rate(hands_per_sample=2)
    assert bb_per_100 == pytest.approx(mean * 50) and ci95 == pytest.approx(1.96 * math.sqrt(var / len(pairs)) * 50)
    assert Tally(hands=1, units=2.0, units_sq=4.0).win_rate() == (200.0, None)
    assert Tally().win_rate() == (None, None)
