"""Turn deadlines leave for the timer in batches (felt_table/ports/turn_clocks.py): the first queued
waits a window for others. The wait must not move the deadline: the timer fires the turn when
the table said it ends, whatever the window (real NATS, Redis, wallet, limits, timer, table)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from felt_contracts import subjects
from felt_contracts.timer import DeadlineInfo, GetDeadline
from felt_runtime.bus import call
from tests.support.services import ServiceRunner
from tests.support.waiting import eventually
from tests.table.conftest import create_table, start_stack
from tests.table.test_player_options import deal, events, seat, wait_for

WINDOW = 0.6  # seconds: far longer than a request's trip, so a deadline sent late would show


@pytest.fixture(scope="module")
def slow_batches(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("turnclocks"))
    try:
        yield start_stack(runner, felt_table_turn_clock_batch_seconds=str(WINDOW))
    finally:
        runner.stop_all()


async def test_a_batched_turn_deadline_fires_when_the_table_said(slow_batches, bus):
    t = await create_table(bus, turn_seconds=1.5)
    a, b = await seat(bus, t, [100, 100])
    await deal(bus, t, [a, b])
    turn = next(e for e in await events(bus, t, 0) if e.kind == "turn")

    async def pending() -> DeadlineInfo:
        return await call(bus, subjects.TIMER_GET, GetDeadline(owner="table", key=f"{t}:turn"), DeadlineInfo)

    info = await eventually(pending, lambda d: d.pending, timeout=5, every=0.05, what="the turn at the timer")
    assert info.due_at is not None
    # sent a window late, with its delay less the wait: due when the turn event says (the
    # request's own trip aside), not a window later
    late = (info.due_at - turn.turn.deadline).total_seconds()
    assert abs(late) < WINDOW / 2, late
    fold, _ = await wait_for(bus, t, turn.seq, "fold", "timeout")
    assert (fold.at - turn.turn.deadline).total_seconds() < WINDOW / 2 + 0.3
