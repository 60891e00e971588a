"""Scheduled tournaments start at their time with enough entries, or are cancelled with every
entry refunded; a start that falls while the service is down happens when it is back
(docs/tournaments.md, Definitions)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from felt_contracts import subjects
from felt_contracts.tournament import GetTournament, TournamentView
from felt_runtime.bus import call
from tests.support.waiting import eventually
from tests.tournament.conftest import accounts, available, create, pool, register


async def status(bus, tid: str) -> str:
    return (await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=tid), TournamentView)).status


async def test_scheduled_tournaments_start_or_are_refunded_also_across_a_restart(room, bus) -> None:
    soon = datetime.now(UTC) + timedelta(seconds=3)
    full = await create(bus, starts_at=soon, min_entrants=2)
    short = await create(bus, starts_at=soon, min_entrants=3)
    later = await create(bus, starts_at=soon + timedelta(seconds=3), min_entrants=2)
    a, b, c, d, e = await accounts(bus, 5)
    for t, who in ((full, a), (full, b), (short, c), (later, d), (later, e)):
        await register(bus, t.tournament_id, who)
    assert await status(bus, full.tournament_id) == "registering"  # not full, not yet time
    await eventually(lambda: status(bus, full.tournament_id), lambda s: s == "running", timeout=30, what="start")
    await eventually(lambda: status(bus, short.tournament_id), lambda s: s == "cancelled", timeout=30, what="cancel")
    assert await available(bus, c) == 200 and (await pool(bus, short.tournament_id)).balance == 0
    assert (await pool(bus, full.tournament_id)).balance == 100
    service = room.procs["tournament"]
    service.kill9()  # down when `later` is due
    await asyncio.sleep(max(0.0, (later.starts_at - datetime.now(UTC)).total_seconds()) + 0.5)
    service.start()
    await asyncio.get_running_loop().run_in_executor(None, service.wait_ready)
    await eventually(lambda: status(bus, later.tournament_id), lambda s: s == "running", timeout=30, what="late start")
