"""kill -9 while a tournament plays over several tables (docs/tournaments.md, Several tables):
of a table-service replica while a tournament hand runs at a table it owns, and of the tournament
service while players move between tables. Wallet, limits, timer, the tournament service and two
table replicas as processes on the session's NATS (test_multi_table.py's room), played by
scripted players over the bus: the tournament goes on and finishes, no tournament chip and no
paper chip is created or lost, and every prize is paid once."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import nats

from felt_contracts.table import SEAT_TAKEN, GetView, TableEvent
from felt_contracts.tournament import TournamentDefinition, TournamentView
from felt_runtime.db import create_engine
from felt_tournament.progress import Play
from tests.tournament.conftest import Room
from tests.tournament.test_multi_table import (
    PLAY,
    owner_of,
    all_events,
    chips_conserved_in_every_hand,
    field_over_tables,
    moves_seen_at_both_tables,
    one_table_at_a_time,
    paid_as_placed,
    played_out,
    room,  # noqa: F401 - the stack: two table replicas
)
from tests.tournament.test_sit_and_go import table_cmd

ENTRANTS, SEATS, CHIPS, BUY_IN = 12, 6, 1000, 20


async def start(bus: Any) -> tuple[TournamentDefinition, dict[str, int]]:
    """Twelve players at two six-seat tables, three paid: it starts."""
    paid = [Decimal(50), Decimal(30), Decimal(20)]
    return await field_over_tables(bus, ENTRANTS, SEATS, CHIPS, BUY_IN, paid, ENTRANTS)


async def back_up(proc: Any) -> None:
    proc.start()
    await asyncio.get_running_loop().run_in_executor(None, proc.wait_ready)


class MidHand:
    """kill -9 of the replica owning a tournament table while a hand there waits for a turn (the
    test's players do not act meanwhile), as `play_out`'s `each`; once another replica owns the
    table, the killed one starts again."""

    def __init__(self, room: Room, bus: Any, js: Any) -> None:
        self.room, self.bus, self.js = room, bus, js
        self.killed: dict[str, str] = {}  # the table, the hand running there, the replica
        self.takeover: list[str] = []  # who owns that table afterwards

    async def __call__(self, t: TournamentView) -> None:
        if self.killed:
            owner = await owner_of(self.js, self.killed["table"])
            if not self.takeover and owner is not None and owner != self.killed["replica"]:
                self.takeover.append(owner)
                await back_up(self.room.procs[self.killed["replica"]])
            return
        for table_id in t.tables:
            view = (await table_cmd(self.bus, table_id, GetView())).view
            hand = view.hand if view else None
            if hand is None or hand.phase == "over" or hand.actor_seat_id is None:
                continue
            owner = await owner_of(self.js, table_id)
            if owner is not None:
                self.killed.update(table=table_id, hand=hand.hand_id, replica=owner)
                self.room.procs[owner].kill9()
                return

    def sat_again_as_dealt(self, evs: list[TableEvent]) -> None:
        """The hand that ran was cancelled (a tournament table's stacks are the wallet's reserves,
        untouched until a hand ends): every player dealt in sat again at their seat with the stack
        they started it with, before the table dealt again."""
        assert self.killed and self.takeover, (self.killed, self.takeover)
        hand = self.killed["hand"]
        start_ev = next(e for e in evs if e.kind == "hand_start" and e.hand_id == hand)
        reset = next(e.seq for e in evs if e.kind == "table_reset" and e.seq > start_ev.seq)
        assert not any(e.kind == "hand_start" and start_ev.seq < e.seq < reset for e in evs)
        assert start_ev.stacks and not any(e.kind == "hand_end" and e.hand_id == hand for e in evs)
        dealt = {int(s): n for s, n in start_ev.stacks.items()}
        sat_before = {e.seat: e.participant_id for e in evs if e.kind in SEAT_TAKEN and e.seq < start_ev.seq}
        next_deal = min((e.seq for e in evs if e.kind == "hand_start" and e.seq > reset), default=None)
        again = {
            e.seat: (e.participant_id, e.amount)
            for e in evs
            if e.kind in SEAT_TAKEN and e.seq > reset and (next_deal is None or e.seq < next_deal)
        }
        assert again == {seat: (sat_before[seat], stack) for seat, stack in dealt.items()}, (again, dealt)


async def test_kill9_of_a_table_replica_mid_hand_refunds_the_hand_and_its_players_play_on_at_their_seats(
    room: Room,
    bus: Any,
    nats_url: str,
) -> None:
    d, before = await start(bus)
    nc = await nats.connect(nats_url)
    kill = MidHand(room, bus, nc.jetstream())
    try:
        t, play, events = await played_out(room, bus, nats_url, d.tournament_id, ENTRANTS * CHIPS, kill)
    finally:
        await nc.close()
    number = next(n for n, tp in play.tables.items() if tp.table_id == kill.killed["table"])
    kill.sat_again_as_dealt(events[number])
    assert chips_conserved_in_every_hand(events) > 5
    one_table_at_a_time(events)
    await paid_as_placed(bus, t, before, BUY_IN, CHIPS)


async def test_kill9_of_a_table_replica_mid_hand_of_a_one_table_sit_and_go_plays_on_at_the_same_seats(
    room: Room,
    bus: Any,
    nats_url: str,
) -> None:
    d, before = await field_over_tables(bus, 6, 6, CHIPS, BUY_IN, [Decimal(100)], 6)
    nc = await nats.connect(nats_url)
    kill = MidHand(room, bus, nc.jetstream())
    try:
        t, _, _ = await played_out(room, bus, nats_url, d.tournament_id, 6 * CHIPS, kill)
    finally:
        await nc.close()
    engine = create_engine(room.database_url)
    try:
        events = await all_events(engine, kill.killed["table"])
    finally:
        await engine.dispose()
    kill.sat_again_as_dealt(events)
    assert chips_conserved_in_every_hand({1: events}) > 3
    await paid_as_placed(bus, t, before, BUY_IN, CHIPS)


async def test_kill9_of_the_tournament_service_while_players_move_between_tables_goes_on_and_pays(
    room: Room,
    bus: Any,
    nats_url: str,
) -> None:
    d, before = await start(bus)
    engine = create_engine(room.database_url)
    caught: list[int] = []  # the moves still to be carried out when the service died
    kills: list[int] = []

    async def pending() -> list[int]:
        async with engine.connect() as conn:
            raw = (await conn.execute(PLAY, {"t": d.tournament_id})).scalar_one()
        return [i for i, m in enumerate(Play.model_validate_json(raw).moves if raw else []) if not m.done]

    async def kill_in_moves() -> None:
        """Watch the tournament's log; kill -9 the service as soon as a move is logged and not yet
        carried out, and start it again; a few times."""
        while len(caught) < 2 and len(kills) < 6:
            if await pending():
                room.procs["tournament"].kill9()
                kills.append(len(caught))
                try:
                    caught.extend(await pending())
                finally:  # started again whatever happens here
                    await back_up(room.procs["tournament"])
                await asyncio.sleep(1)
            await asyncio.sleep(0.005)

    killer = asyncio.create_task(kill_in_moves())
    try:
        t, play, events = await played_out(room, bus, nats_url, d.tournament_id, ENTRANTS * CHIPS)
    finally:
        killer.cancel()
        await engine.dispose()
    assert kills and caught, "the service never died with a move to carry out"
    assert all(m.done for m in play.moves)
    moves_seen_at_both_tables(play, events)
    one_table_at_a_time(events)
    assert chips_conserved_in_every_hand(events) > 5
    await paid_as_placed(bus, t, before, BUY_IN, CHIPS)
