"""Once a service is up, its garbage collector sees only what was made since, and by default the
service paces it: no automatic collection (young collections of 60,000-170,000 live objects stopped
the gateway 50-180 ms a few times a minute at 2,000 seated), one full collection on a clock, and
one sooner when many objects piled up."""

from __future__ import annotations

import asyncio
import gc
import weakref
from types import SimpleNamespace

import pytest

from felt_runtime.collector import GC_THRESHOLDS, freeze_heap_once_started, pace
from felt_runtime.metrics import GC_PAUSE
from felt_runtime.settings import Settings


class Node:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def _cycle() -> weakref.ref[Node]:
    return weakref.ref(Node())


@pytest.fixture
def collector_restored() -> object:
    before = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()
    gc.set_threshold(*before[0])
    gc.enable() if before[1] else gc.disable()


def _pauses() -> float:
    return next(s.value for m in GC_PAUSE.collect() for s in m.samples if s.name.endswith("_count"))


def test_the_default_is_a_paced_collector() -> None:
    assert Settings().gc_full_seconds == 300


@pytest.mark.usefixtures("collector_restored")
def test_with_pacing_off_a_started_service_collects_its_young_generation_rarely() -> None:
    asyncio.run(freeze_heap_once_started(SimpleNamespace(started=True), 0))
    assert gc.get_freeze_count() > 10_000
    assert gc.isenabled()
    assert gc.get_threshold() == GC_THRESHOLDS and GC_THRESHOLDS[0] >= 10_000


@pytest.mark.usefixtures("collector_restored")
def test_a_paced_service_collects_its_cycles_on_its_clock_and_only_then() -> None:
    async def run() -> None:
        pacing = asyncio.create_task(freeze_heap_once_started(SimpleNamespace(started=True), 1.0))
        await asyncio.sleep(0.1)
        assert gc.get_freeze_count() > 10_000 and not gc.isenabled()
        pauses = _pauses()
        cycles = [_cycle() for _ in range(30_000)]  # beyond the automatic threshold, many times
        await asyncio.sleep(0.3)
        assert all(c() is not None for c in cycles), "collected before its time: the automatic collector ran"
        await asyncio.sleep(1.0)
        assert all(c() is None for c in cycles), "not collected on the clock"
        assert _pauses() == pauses + 1
        pacing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pacing
        assert gc.isenabled(), "a stopped service gives the automatic collector back"

    asyncio.run(run())


@pytest.mark.usefixtures("collector_restored")
def test_a_pile_of_new_objects_is_collected_before_the_clock() -> None:
    async def run() -> None:
        pacing = asyncio.create_task(pace(3600, most=50_000, look=0.05))
        await asyncio.sleep(0.1)
        cycles = [_cycle() for _ in range(10_000)]
        await asyncio.sleep(0.3)
        assert all(c() is not None for c in cycles), "10,000 cycles are 20,000 objects: under the bound"
        cycles += [_cycle() for _ in range(20_000)]
        await asyncio.sleep(0.3)
        assert all(c() is None for c in cycles), "past the bound: collected without waiting the hour"
        pacing.cancel()

    asyncio.run(run())


@pytest.mark.usefixtures("collector_restored")
def test_a_rounds_survivors_are_frozen_and_their_later_cycles_wait_for_a_thorough_round() -> None:
    """A round walks only what was made since the last one (its survivors are frozen); cycles
    that form among frozen objects afterwards are collected by the next thorough round."""

    async def run() -> None:
        async def rounds(n: int) -> None:  # wait until n more rounds have run
            target = _pauses() + n
            while _pauses() < target:
                await asyncio.sleep(0.01)

        pacing = asyncio.create_task(pace(0.2, look=0.01, thorough_every=3))
        kept = [Node() for _ in range(20_000)]  # alive across round 1: frozen by it
        await rounds(1)
        frozen = gc.get_freeze_count()
        assert frozen >= 20_000
        dropped = [weakref.ref(n) for n in kept]
        del kept  # now cyclic garbage among frozen objects
        fresh = [_cycle() for _ in range(5_000)]  # new cycles: any round collects them
        await rounds(1)
        assert all(c() is None for c in fresh), "a round collects what was made since the last one"
        assert all(d() is not None for d in dropped), "a plain round walked the frozen survivors"
        await rounds(1)  # round 3: thorough
        assert all(d() is None for d in dropped), "the thorough round left cycles among frozen objects"
        assert gc.get_freeze_count() >= len(dropped)  # and froze what was left alive again
        pacing.cancel()

    asyncio.run(run())
