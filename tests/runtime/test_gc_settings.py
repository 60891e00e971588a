"""Once a service is up, its garbage collector sees only what was made since and collects the
young generation rarely enough that a request's objects die before it looks (full collections of
the gateway's heap were 110 ms of CPU each, twelve in two minutes at 960 seated)."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace

from felt_runtime.service import GC_THRESHOLDS, freeze_heap_once_started


def test_a_started_service_freezes_its_heap_and_collects_its_young_generation_rarely() -> None:
    before = gc.get_threshold()
    try:
        asyncio.run(freeze_heap_once_started(SimpleNamespace(started=True)))
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold() == GC_THRESHOLDS and GC_THRESHOLDS[0] >= 10_000
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
