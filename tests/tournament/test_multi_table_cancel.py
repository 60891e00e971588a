"""A tournament cancelled while it plays at several tables (the real stack, two table-service
replicas): every one of its tables closes with its seats cashed out, the chips retire to an issuer
at zero and every buy-in comes back."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.tournament import CancelTournament, Level, TournamentView
from felt_contracts.wallet import ChipsMoved
from felt_runtime.db import create_engine
from felt_tournament.progress import Play
from felt_wallet.chips import retire_key
from tests.tournament.conftest import Room, accounts, available, register
from tests.tournament.test_multi_table import act_at, all_events, several_tables, tables_room
from felt_runtime.bus import BusError, call


@pytest.fixture(scope="module")
def room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    yield from tables_room(nats_url, redis_url, tmp_path_factory)


async def test_a_tournament_cancelled_while_playing_at_two_tables_closes_both_and_retires_its_chips(
    room: Room, bus: Any
) -> None:
    names = await accounts(bus, 8)
    levels = [Level(small_blind=10, big_blind=20, duration_seconds=600)]
    d = await several_tables(bus, 8, 4, 1000, 10, levels, [Decimal(100)], min_entrants=8)
    before = {n: await available(bus, n) for n in names}
    for n in names:
        await register(bus, d.tournament_id, n)
    engine, rng = create_engine(room.database_url), random.Random(5)
    query = sa.text("select play from tournament_tournaments where tournament_id = :t")
    done = sa.text("select result from wallet_commands where key = :k")
    try:
        for _ in range(200):  # both tables deal (nobody acts: the turn clock runs)
            async with engine.connect() as conn:
                raw = (await conn.execute(query, {"t": d.tournament_id})).scalar()
            play = Play.model_validate_json(raw) if raw else None
            if play and len(play.tables) == 2 and all(t.hand_id for t in play.tables.values()):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the tables did not deal")
        await call(bus, subjects.TOURNAMENT_CANCEL, CancelTournament(tournament_id=d.tournament_id), TournamentView)
        for _ in range(600):  # each table closes after its hand in progress, then the chips retire
            async with engine.connect() as conn:
                retired = (await conn.execute(done, {"k": retire_key(d.tournament_id)})).scalar()
            if retired:
                break
            for t in play.tables.values():  # the hands in progress are played out
                try:
                    await act_at(bus, t.table_id, rng)
                except BusError as exc:
                    assert exc.code in (ErrorCode.NOT_FOUND, ErrorCode.TABLE_CLOSED), exc
            await asyncio.sleep(0.1)
        events = {n: await all_events(engine, t.table_id) for n, t in play.tables.items()}
    finally:
        await engine.dispose()
    assert retired and ChipsMoved.model_validate_json(retired).issuer == 0
    for n, evs in events.items():
        assert any(e.kind == "table_closed" for e in evs), n
    for n in names:  # the buy-in came back
        assert await available(bus, n) == before[n]
