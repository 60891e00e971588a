"""Hand-for-hand on the money bubble, live: twelve players over two six-seat tables (two
table-service replicas, the real wallet, limits, timer and tournament service), eight paid, so the
bubble is at nine players, more than one table holds. Scripted players over the bus shove
heads-up until the bubble, then fold round the first hand-for-hand rounds, then go all-in at the
smaller table and, once it has busted someone in the round, all-in at the other one: players at
both tables go out in one round. The tables' stored events show every table finishing each round's
hand before any deals the next, and the standings place the round's busts by the stacks they
started that round with."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, GetView, TableEvent, TableView
from felt_contracts.tournament import GetTournament, Level, TournamentView
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine
from felt_tournament.progress import Play
from tests.tournament.conftest import Room, accounts, pool, register
from tests.tournament.test_multi_table import all_events, several_tables, tables_room
from tests.tournament.test_sit_and_go import table_cmd

ENTRANTS, SEATS, CHIPS, BUY_IN, BIG_BLIND = 12, 6, 1000, 10, 20
PAID = [Decimal(p) for p in (30, 20, 14, 10, 8, 7, 6, 5)]
BUBBLE = len(PAID) + 1  # players left when the next one out wins nothing
SAFE_ROUNDS = 2  # hand-for-hand rounds folded round before the all-ins


@pytest.fixture(scope="module")
def room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    yield from tables_room(nats_url, redis_url, tmp_path_factory)


@dataclass
class Script:
    """What the players do. `shove`: one player all-in and one caller (one bust at most);
    `all_in`: everyone all-in; `safe`: check or fold (nobody goes out, the blinds aside). On the
    bubble, each round the smaller table plays its hand first and the other one's waits a second
    after it (the smaller table would deal again meanwhile if it did not wait for the round)."""

    engine: Any
    tid: str
    wave: dict[str, str] = field(default_factory=dict)  # the round's smaller table and its hand
    over_at: float = 0.0  # when the smaller table's hand of the round was seen over
    busted_first: bool | None = None  # whether it busted someone
    seen: dict[int, set[str]] = field(default_factory=dict)  # each table's hands seen on the bubble
    lonely: float = 0.0  # since when one table alone is in a hand

    async def play(self) -> Play | None:
        query = sa.text("select play from tournament_tournaments where tournament_id = :t")
        async with self.engine.connect() as conn:
            raw = (await conn.execute(query, {"t": self.tid})).scalar_one()
        return Play.model_validate_json(raw) if raw else None

    async def modes(self, play: Play, views: dict[int, TableView]) -> dict[int, str]:
        """The mode of each table that is in a hand now."""
        left = ENTRANTS - len(play.busts)
        live = sorted(views)
        if left > BUBBLE:  # down to the bubble one bust at a time, at one table when a bust away
            return {n: "shove" if left > BUBBLE + 1 or n == live[0] else "safe" for n in live}
        if left < BUBBLE or len(live) < 2:
            return {n: "all_in" for n in live}
        now = asyncio.get_running_loop().time()
        hands = {n: v.hand for n, v in views.items() if v.hand is not None}
        running = {n: h.hand_id for n, h in hands.items() if h.phase != "over"}
        for n, hand_id in running.items():
            self.seen.setdefault(n, set()).add(hand_id)
        small = min(live, key=lambda n: (len(views[n].seats), -n))
        big = next(n for n in live if n != small)
        safe = min(len(self.seen.get(n, ())) for n in live) <= SAFE_ROUNDS
        if not self.wave:
            if len(running) < 2:  # a round starts once both tables deal its hand
                self.lonely = self.lonely or now
                return {n: "safe" for n in running} if now - self.lonely > 3 else {}  # dealt before the bubble
            self.wave, self.over_at, self.busted_first, self.lonely = {"small": running[small]}, 0.0, None, 0.0
            self.wave["big"] = running[big]
        if running.get(small) == self.wave["small"]:
            return {small: "safe" if safe else "all_in"}  # the other table waits
        self.over_at = self.over_at or now
        if self.busted_first is None:
            ends = await all_events(self.engine, views[small].table_id)
            end = next((e for e in ends if e.kind == "hand_end" and e.hand_id == self.wave["small"]), None)
            if end is None:
                return {}
            self.busted_first = any(n == 0 for n in (end.stacks or {}).values())
        if now - self.over_at < 1:
            return {}
        if running.get(big) != self.wave["big"]:
            self.wave = {}
            return {}
        return {big: "all_in" if self.busted_first and not safe else "safe"}


async def act(bus: Any, v: TableView, mode: str) -> bool:
    h = v.hand
    if h is None or h.phase == "over" or h.actor_seat_id is None:
        return False
    actor = next((s.participant_id for s in v.seats if s.seat == h.actor_seat_id), None)
    mine = (await table_cmd(bus, v.table_id, GetView(viewer=actor))).view if actor else None
    la = mine.hand.legal_actions if mine and mine.hand else None
    if actor is None or mine is None or mine.hand is None or la is None:
        return False
    raised = h.to_match > BIG_BLIND
    matched = sum(1 for s in h.seats if not s.folded and (s.bet >= h.to_match or s.all_in))
    if mode == "all_in" or (mode == "shove" and (not raised or matched < 2)):
        action = "allIn" if la.all_in is not None else "call" if la.call is not None else "check"
    else:
        action = "check" if la.check else "fold"
    try:
        await table_cmd(bus, v.table_id, Act(participant_id=actor, action=action, hand_id=h.hand_id, turn_id=h.turn_id))
    except BusError as exc:
        assert exc.code.value in ("stale_turn", "hand_closed", "not_your_turn", "not_seated"), exc
    return True


async def play_out(bus: Any, script: Script, seconds: float) -> TournamentView:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        t = await call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=script.tid), TournamentView)
        if t.status == "finished":
            return t
        play = await script.play()
        if play is None:
            await asyncio.sleep(0.05)
            continue
        views: dict[int, TableView] = {}
        for number, tp in play.tables.items():
            if tp.broken:
                continue
            try:
                view = (await table_cmd(bus, tp.table_id, GetView())).view
            except BusError as exc:
                assert exc.code in (ErrorCode.NOT_FOUND, ErrorCode.UNAVAILABLE, ErrorCode.TABLE_CLOSED), exc
                continue
            if view is not None:
                views[number] = view
        acted = False
        for number, mode in (await script.modes(play, views)).items():
            acted = await act(bus, views[number], mode) or acted
        if not acted:
            await asyncio.sleep(0.05)
    raise AssertionError("the tournament did not finish in time")


@dataclass
class Hand:
    table: int
    hand_id: str
    go: Any  # when the tournament told the table to deal it
    start: Any
    end: Any
    stacks: dict[str, int]  # participant -> chips at the start
    busted: list[str]  # participants whose seat closed busted after it


def hands_of(table: int, events: list[TableEvent]) -> list[Hand]:
    seats: dict[int, str] = {}
    out: list[Hand] = []
    go = None
    for e in events:
        if e.kind == "table_go":
            go = e.at
        elif e.kind in ("seated", "waiting") and e.seat is not None and e.participant_id:
            seats[e.seat] = e.participant_id
        elif e.kind == "hand_start" and e.stacks and e.hand_id:
            stacks = {seats[int(s)]: n for s, n in e.stacks.items()}
            out.append(Hand(table, e.hand_id, go, e.at, None, stacks, []))
        elif e.kind == "hand_end" and out and out[-1].hand_id == e.hand_id:
            out[-1].end = e.at
        elif e.kind == "session_closed" and e.detail == "busted" and e.participant_id and out:
            out[-1].busted.append(e.participant_id)
    return out


async def test_hand_for_hand_on_the_bubble_over_two_tables(room: Room, bus: Any) -> None:
    names = await accounts(bus, ENTRANTS)
    levels = [Level(small_blind=BIG_BLIND // 2, big_blind=BIG_BLIND, duration_seconds=3600)]
    d = await several_tables(bus, ENTRANTS, SEATS, CHIPS, BUY_IN, levels, PAID, min_entrants=ENTRANTS)
    for n in names:
        await register(bus, d.tournament_id, n)
    engine = create_engine(room.database_url)
    try:
        script = Script(engine, d.tournament_id)
        t = await play_out(bus, script, 600)
        play = await script.play()
        assert play is not None
        events = {n: await all_events(engine, tp.table_id) for n, tp in play.tables.items()}
    finally:
        await engine.dispose()
    assert t.status == "finished" and (await pool(bus, d.tournament_id)).balance == 0
    assert sorted(play.tables) == [1, 2]

    # the bubble: from the bust that left nine players to the one that left eight or fewer
    closed = sorted(e.at for evs in events.values() for e in evs if e.kind == "session_closed" and e.detail == "busted")
    began, burst = closed[ENTRANTS - BUBBLE - 1], closed[ENTRANTS - BUBBLE]
    hands = sorted((h for n, evs in events.items() for h in hands_of(n, evs)), key=lambda h: h.go)
    # its hands in waves: a wave ends when every hand in it has ended before the next is told to go
    waves: list[list[Hand]] = []
    for h in (h for h in hands if h.end > began and h.go < burst):
        if waves and h.go < max(w.end for w in waves[-1]):
            waves[-1].append(h)
        else:
            waves.append([h])
    first = [h.table for h in waves[0]]
    if len(set(first)) == len(first) < 2:
        waves = waves[1:]  # a hand dealt before it began, over before its first round
    # every wave is a round: each table deals exactly one hand in it, and every hand of it ends before the next
    assert [sorted(h.table for h in w) for w in waves] == [[1, 2]] * len(waves), [[h.table for h in w] for w in waves]
    assert len(waves) == play.hfh_round >= SAFE_ROUNDS + 1

    # the last round's busts, at both tables, are one hand: placed by the stacks they started the round with
    last = waves[-1]
    gone = {p: h.stacks[p] for h in last for p in h.busted}
    assert {h.table for h in last if h.busted} == {1, 2}, [(h.table, h.busted) for h in last]
    place = {e.account_id: e.place for e in t.entries}
    top = BUBBLE - len(gone) + 1  # the round's busts take the places below everyone who outlasted it
    expected = {p: top + sum(1 for q in gone if gone[q] > gone[p]) for p in gone}  # equal stacks: the best shared
    assert {p: place[p] for p in gone} == expected, gone
