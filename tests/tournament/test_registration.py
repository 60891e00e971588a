"""Registrations move money exactly once (docs/tournaments.md, Money): the buy-in goes from
the player's available chips into the tournament's prize pool, unregistering before the start
and cancelling give it back, and every refusal changes nothing."""

from __future__ import annotations

from typing import Any

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import CapChange, LimitName, LimitsSetCap, Scope
from felt_contracts.tournament import CancelTournament, GetTournament, TournamentView, Unregister, Registration
from felt_runtime.bus import call
from tests.support.waiting import refused
from tests.tournament.conftest import accounts, available, create, pool, register


async def view(bus: Any, tid: str) -> TournamentView:
    return await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=tid), TournamentView)


async def unregister(bus: Any, tid: str, who: str) -> Registration:
    return await call(bus, subjects.TOURNAMENT_UNREGISTER, Unregister(tournament_id=tid, account_id=who), Registration)


async def state(bus: Any, tid: str, players: list[str]) -> tuple[Any, ...]:
    """What a refusal must leave as it was: balances, the pool and the tournament."""
    return (*[await available(bus, p) for p in players], await pool(bus, tid), await view(bus, tid))


async def test_register_moves_the_buy_in_once_and_unregistering_gives_it_back(bus) -> None:
    d = await create(bus)
    (a,) = await accounts(bus, 1)
    reg = await register(bus, d.tournament_id, a)
    assert (reg.status, reg.entrants, reg.prize_pool) == ("registered", 1, 50)
    assert await available(bus, a) == 150 and (await pool(bus, d.tournament_id)).balance == 50
    before = await state(bus, d.tournament_id, [a])
    await refused(register(bus, d.tournament_id, a), ErrorCode.ALREADY_REGISTERED)
    assert await state(bus, d.tournament_id, [a]) == before
    out = await unregister(bus, d.tournament_id, a)
    assert (out.status, out.entrants, out.prize_pool) == ("unregistered", 0, 0)
    assert await available(bus, a) == 200 and (await pool(bus, d.tournament_id)).balance == 0
    await refused(unregister(bus, d.tournament_id, a), ErrorCode.NOT_REGISTERED)
    again = await register(bus, d.tournament_id, a)  # registering again is a new entry
    assert again.entry_id != reg.entry_id and await available(bus, a) == 150


async def test_refused_registrations_change_nothing(bus) -> None:
    d = await create(bus, max_entrants=2)
    rich = await create(bus, buy_in=500)
    a, b, c, capped = await accounts(bus, 4)
    await register(bus, d.tournament_id, a)
    everyone = [a, b, c, capped]
    before = await state(bus, rich.tournament_id, everyone)
    await refused(register(bus, rich.tournament_id, b), ErrorCode.INSUFFICIENT_FUNDS)
    assert await state(bus, rich.tournament_id, everyone) == before
    await call(
        bus,
        subjects.LIMITS_SET_CAP,
        LimitsSetCap(scope=Scope.OWNER, scope_id=capped, limit=LimitName.DAILY_BUY_IN, cap=49),
        CapChange,
    )
    before = await state(bus, d.tournament_id, everyone)
    err = await refused(register(bus, d.tournament_id, capped), ErrorCode.LIMIT_EXCEEDED)
    assert err.details["limit"] == "daily_buy_in"
    assert await state(bus, d.tournament_id, everyone) == before
    await register(bus, d.tournament_id, b)  # the second of two seats: the Sit & Go starts
    assert (await view(bus, d.tournament_id)).status == "running"
    before = await state(bus, d.tournament_id, everyone)
    await refused(unregister(bus, d.tournament_id, a), ErrorCode.TOURNAMENT_STARTED)
    await refused(register(bus, d.tournament_id, c), ErrorCode.REGISTRATION_CLOSED)
    await refused(unregister(bus, d.tournament_id, c), ErrorCode.NOT_REGISTERED)
    assert await state(bus, d.tournament_id, everyone) == before


async def test_a_full_tournament_refuses_and_a_freeroll_moves_no_chips(bus) -> None:
    d = await create(bus, buy_in=0, max_entrants=3, starts_at=None)
    players = await accounts(bus, 4)
    for p in players[:3]:
        assert (await register(bus, d.tournament_id, p)).prize_pool == 0
    assert [await available(bus, p) for p in players] == [200] * 4
    assert (await view(bus, d.tournament_id)).status == "running"
    await refused(register(bus, d.tournament_id, players[3]), ErrorCode.REGISTRATION_CLOSED)


async def test_cancelling_refunds_every_entry_exactly_once(bus) -> None:
    d = await create(bus)
    players = await accounts(bus, 4)
    for p in players:
        await register(bus, d.tournament_id, p)
    await unregister(bus, d.tournament_id, players[0])
    cancel = CancelTournament(tournament_id=d.tournament_id)
    out = await call(bus, subjects.TOURNAMENT_CANCEL, cancel, TournamentView, timeout=10)
    assert out.status == "cancelled" and [e.status for e in out.entries].count("refunded") == 3
    assert (
        await call(bus, subjects.TOURNAMENT_CANCEL, CancelTournament(tournament_id=d.tournament_id), TournamentView)
        == out
    )
    assert [await available(bus, p) for p in players] == [200] * 4
    state_ = await pool(bus, d.tournament_id)
    assert state_.balance == 0 and state_.status == "refunded" and all(e.refunded for e in state_.entries)
    await refused(register(bus, d.tournament_id, players[0]), ErrorCode.REGISTRATION_CLOSED)
