"""Bus handlers: operators create, list and cancel tournaments; players register and leave; the
level clock's deadlines."""

from __future__ import annotations

from typing import Any

from felt_contracts import subjects
from felt_contracts.tournament import (
    CancelTournament,
    CreateTournament,
    GetTournament,
    ListTournaments,
    Register,
    Registration,
    TournamentList,
    TournamentView,
    Unregister,
)
from felt_contracts.timer import TimerFired
from felt_runtime.bus import declare_contract, responder
from felt_tournament.director import Director
from felt_tournament.floor import OWNER, Floor

#: requests served at once: each tournament takes its steps one at a time (the director's lock
#: per tournament), so different tournaments' requests need not wait for each other
CONCURRENCY = 64


def register(broker: Any, director: Director, floor: Floor) -> None:
    q = subjects.TOURNAMENT_QUEUE

    declare_contract(subjects.timer_fired(OWNER), TimerFired)

    @broker.subscriber(subjects.timer_fired(OWNER), queue=q, title="timer fired -> level clock")
    async def level_over(ev: TimerFired) -> None:
        """A level's deadline: the level clock moves on."""
        await floor.level_fired(ev)

    @responder(broker, subjects.TOURNAMENT_CREATE, CreateTournament, queue=q, concurrency=CONCURRENCY)
    async def create(req: CreateTournament) -> TournamentView:
        """Create a tournament from its definition (refused: `malformed` with `details.field`)."""
        return await director.create(req)

    @responder(broker, subjects.TOURNAMENT_LIST, ListTournaments, queue=q, concurrency=CONCURRENCY)
    async def list_tournaments(req: ListTournaments) -> TournamentList:
        """Every tournament (or those in the statuses asked for), without entries."""
        return await director.listing(req.status)

    @responder(broker, subjects.TOURNAMENT_GET, GetTournament, queue=q, concurrency=CONCURRENCY)
    async def get(req: GetTournament) -> TournamentView:
        """One tournament with its entries, places and prizes."""
        return await director.view(req.tournament_id)

    @responder(broker, subjects.TOURNAMENT_CANCEL, CancelTournament, queue=q, concurrency=CONCURRENCY)
    async def cancel(req: CancelTournament) -> TournamentView:
        """Cancel a tournament that has not finished: every entry refunded exactly once."""
        return await director.cancel(req.tournament_id)

    @responder(broker, subjects.TOURNAMENT_REGISTER, Register, queue=q, concurrency=CONCURRENCY)
    async def register_entry(req: Register) -> Registration:
        """Enter with the buy-in from the account's available chips (limits' caps apply)."""
        return await director.register(req)

    @responder(broker, subjects.TOURNAMENT_UNREGISTER, Unregister, queue=q, concurrency=CONCURRENCY)
    async def unregister(req: Unregister) -> Registration:
        """Leave before the start: the buy-in comes back."""
        return await director.unregister(req)
