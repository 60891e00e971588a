"""The recurring Sit & Go: the service opens the template's first copy when it starts, and the
next copy as soon as the open one fills; a restart opens no second copy."""

from __future__ import annotations

from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.tournament import ListTournaments, TournamentList
from felt_runtime.bus import call
from tests.tournament.conftest import Room, accounts, register


async def copies(bus: NatsBroker) -> dict[str, str]:
    listed = await call(bus, subjects.TOURNAMENT_LIST, ListTournaments(), TournamentList)
    return {
        t.definition.tournament_id: t.status
        for t in listed.tournaments
        if t.definition.tournament_id.startswith("sng-six-")
    }


async def test_the_recurring_sit_and_go_reopens_when_one_fills_and_once_across_a_restart(
    room: Room, bus: NatsBroker
) -> None:
    assert await copies(bus) == {"sng-six-1": "registering"}
    room.procs["tournament"].restart()
    assert await copies(bus) == {"sng-six-1": "registering"}  # one open copy is enough
    for who in await accounts(bus, 6):
        assert (await register(bus, "sng-six-1", who)).status == "registered"
    assert await copies(bus) == {"sng-six-1": "running", "sng-six-2": "registering"}
