"""A service's garbage collector, paced by the service instead of by allocations.

Once a service is up it freezes what start-up left alive (modules, models, schemas, tables: most
of the heap, all of it long-lived), so no collection walks it again. Then, by default, the
automatic collector is off and one full collection runs every `FELT_GC_FULL_SECONDS`, or sooner
once `MOST_NEW_OBJECTS` more objects are alive than after the last one.

Why: CPython 3.11 starts a young collection when allocations less deallocations pass a threshold.
In a steady service old objects die about as fast as new ones are made, so by then the young
generation holds every pending long-poll, socket receive and table outcome made since: in a busy
gateway, tens of thousands of live objects and a stopped event loop a few times a minute, which
every action in flight waits out. Almost all of a service's garbage is freed by reference counting
as it goes; what only the collector frees (cycles: a closed HTTP connection's protocol and parser,
an exception's traceback) is small in steady play and waits for the next round
(docs/benchmarks.md, "Garbage collector").

What survives a round is frozen too, so the next round walks only what was made since, not every
live object (most of them feeds and connections older than the last round). Cycles that form among frozen objects
later (a long-lived connection closed) wait for every `THOROUGH_EVERY`-th round, which unfreezes
everything and walks it all once.

`FELT_GC_FULL_SECONDS=0` keeps the automatic collector, at `GC_THRESHOLDS`.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

from felt_runtime.metrics import GC_FROZEN, GC_PAUSE

log = logging.getLogger("felt.collector")

#: with the automatic collector: young collections every 20,000 net allocations instead of 700, so a
#: request's short-lived objects die before a collection sees them
GC_THRESHOLDS = (20_000, 10, 10)
#: a paced collector also collects once this many more objects are tracked than after its last
#: collection (CPython's net count): a burst of garbage (a reconnect storm's closed connections) waits
#: for no clock
MOST_NEW_OBJECTS = 1_000_000
#: how often a paced collector looks at that count
LOOK_SECONDS = 1.0
#: every this many paced rounds one walks the frozen heap as well (start-up's and earlier survivors)
THOROUGH_EVERY = 6


def freeze_heap() -> None:
    """Collect once, move every object alive now out of the collector's sight, and collect at
    `GC_THRESHOLDS` from then on (for a process whose heap so far is long-lived)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def collect(thorough: bool = False) -> int:
    """One full collection of what is not frozen (`thorough`: of everything), timed
    (`felt_gc_pause_seconds`); then what survived is frozen."""
    started = time.perf_counter()
    if thorough:
        gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    paused = time.perf_counter() - started
    GC_PAUSE.observe(paused)
    GC_FROZEN.set(gc.get_freeze_count())
    log.debug("garbage collected", extra={"objects": found, "ms": round(paused * 1000, 1), "thorough": thorough})
    return found


async def pace(
    every: float,
    most: int = MOST_NEW_OBJECTS,
    look: float = LOOK_SECONDS,
    thorough_every: int = THOROUGH_EVERY,
) -> None:
    """With the automatic collector off, collect every `every` seconds, or once `most` objects more
    are tracked than after the last collection; every `thorough_every`-th round walks the frozen
    heap too. Turns the automatic collector back on when cancelled (the service stops)."""
    loop = asyncio.get_running_loop()
    gc.disable()
    try:
        due = loop.time() + every
        rounds = 0
        while True:
            await asyncio.sleep(max(0.0, min(look, due - loop.time())))
            if loop.time() >= due or gc.get_count()[0] > most:
                rounds += 1
                collect(thorough=rounds % thorough_every == 0)
                due = loop.time() + every
    finally:
        gc.enable()


async def freeze_heap_once_started(server: Any, full_every: float) -> None:
    """Once the service is up, freeze start-up's heap (collected once just before: cycles among
    the frozen objects are never collected), then pace the collector (`full_every` seconds; 0 keeps
    the automatic collector at `GC_THRESHOLDS`)."""
    while not server.started:
        await asyncio.sleep(0.05)
    freeze_heap()
    GC_FROZEN.set(gc.get_freeze_count())
    log.info("heap frozen", extra={"objects": gc.get_freeze_count(), "full_collection_every_s": full_every})
    if full_every > 0:
        await pace(full_every)
