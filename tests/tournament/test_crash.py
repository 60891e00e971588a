"""kill -9 at the worst moments (docs/tournaments.md, Money): of the tournament service while
registrations are in flight, of it after the wallet moved a buy-in it never heard about, and
of the wallet while the prizes are paid. No chip is lost, created or moved twice."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.tournament import CreateTournament, GetTournament, Register, Registration, TournamentView
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine, migrate
from felt_tournament.director import Director
from felt_tournament.places import Bust
from felt_wallet.store import transfers
from tests.support.pausing import stop
from tests.support.waiting import eventually, refused
from tests.tournament.conftest import accounts, available, create, definition, pool
from tests.wallet.conftest import check_invariants


async def until_answered(bus: Any, req: Register) -> Registration:
    """What a client does: send the same registration again until it is answered."""
    while True:
        try:
            return await call(bus, subjects.TOURNAMENT_REGISTER, req, Registration, timeout=3)
        except BusError as exc:
            if exc.code is not ErrorCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.1)


async def restart(proc: Any) -> None:
    proc.kill9()
    proc.start()
    await asyncio.get_running_loop().run_in_executor(None, proc.wait_ready)


async def test_kill9_of_the_tournament_service_mid_registration_charges_each_entry_once(room, bus) -> None:
    d = await create(bus, max_entrants=40)
    players = await accounts(bus, 16)
    requests = [Register(tournament_id=d.tournament_id, account_id=p, owner_id=p) for p in players]
    burst = asyncio.gather(*(until_answered(bus, r) for r in requests))
    await eventually(lambda: pool(bus, d.tournament_id), lambda s: s.balance >= 100, every=0.01, what="two entries")
    await restart(room.procs["tournament"])
    done = await burst
    assert {r.status for r in done} == {"registered"} and len({r.entry_id for r in done}) == 16
    assert [await available(bus, p) for p in players] == [150] * 16
    state = await pool(bus, d.tournament_id)
    assert state.balance == 16 * 50 and len(state.entries) == 16
    view = await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=d.tournament_id), TournamentView)
    assert view.entrants == 16 and view.prize_pool == 800


async def test_a_buy_in_the_service_never_heard_about_is_found_after_its_restart(room, bus) -> None:
    d = await create(bus)
    (a,) = await accounts(bus, 1)
    wallet = room.procs["wallet"]
    stop(wallet.process.pid)  # the wallet takes the request but answers too late
    try:
        await refused(
            call(
                bus,
                subjects.TOURNAMENT_REGISTER,
                Register(tournament_id=d.tournament_id, account_id=a, owner_id=a),
                Registration,
                timeout=10,
            ),
            ErrorCode.UNAVAILABLE,
        )
        room.procs["tournament"].kill9()  # gone before the wallet's answer
    finally:
        os.kill(wallet.process.pid, signal.SIGCONT)
    await eventually(lambda: pool(bus, d.tournament_id), lambda s: s.balance == 50, what="the buy-in moved")
    tournament = room.procs["tournament"]
    tournament.start()
    await asyncio.get_running_loop().run_in_executor(None, tournament.wait_ready)
    get = GetTournament(tournament_id=d.tournament_id)
    view = await eventually(
        lambda: call(bus, subjects.TOURNAMENT_GET, get, TournamentView), lambda v: v.entrants == 1, what="the entry"
    )
    assert [e.status for e in view.entries] == ["registered"]
    assert await available(bus, a) == 150 and (await pool(bus, d.tournament_id)).balance == 50


async def test_kill9_of_the_wallet_while_prizes_are_paid_pays_each_prize_once(room, bus, tmp_path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'director.sqlite'}")
    await migrate(engine, "felt_tournament", "tournament")
    director = Director(engine, bus, timeout=2)
    try:
        d = definition()
        await director.create(CreateTournament(definition=d))
        players = await accounts(bus, 6)
        entries = [
            (await director.register(Register(tournament_id=d.tournament_id, account_id=p, owner_id=p))).entry_id
            for p in players
        ]
        assert (await director.view(d.tournament_id)).status == "running"
        # eliminated one a hand; the last two in one hand from the same stack: they tie for 2nd-3rd
        eliminations = [[Bust(e, 1500)] for e in entries[5:2:-1]] + [[Bust(entries[1], 900), Bust(entries[2], 900)]]
        wallet = room.procs["wallet"]
        stop(wallet.process.pid)
        await refused(director.finish(d.tournament_id, eliminations, entries[0]), ErrorCode.UNAVAILABLE)
        assert (await director.view(d.tournament_id)).status == "paying"
        await restart(wallet)
        assert await director.settle_pending() == 0
        assert await director.settle_pending() == 0  # nothing is paid twice
        view = await director.view(d.tournament_id)
        assert view.status == "finished"
        prizes = {e.account_id: e.prize for e in view.entries}
        assert [e.place for e in view.entries] == [1, 2, 2, 4, 5, 6]
        assert sum(prizes.values()) == 300 and prizes[players[0]] == 195 and prizes[players[1]] == 53
        assert [await available(bus, p) for p in players] == [200 - 50 + prizes[p] for p in players]
        state = await pool(bus, d.tournament_id)
        assert state.balance == 0 and state.status == "paid"
        wallet_db = create_engine(room.database_url)
        try:
            async with wallet_db.connect() as conn:
                paid = (
                    await conn.execute(
                        sa.select(sa.func.count()).where(
                            transfers.c.kind == "prize", transfers.c.credit.contains(players[0])
                        )
                    )
                ).scalar_one()
            assert paid == 1
            await check_invariants(wallet_db)
        finally:
            await wallet_db.dispose()
    finally:
        await engine.dispose()
