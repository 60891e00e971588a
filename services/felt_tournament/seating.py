"""Seating, balancing, breaking tables and hand-for-hand (docs/tournaments.md, Tables).

Pure: no I/O; randomness comes from the caller's `random.Random`. Seats are numbered 1..seats per
table, clockwise; a table's button moves as the table service moves it (`felt_engine.next_button`:
the next occupied seat after the last hand's button), so who posts which blind next is computed
by the same rule the table deals by. The director calls `plan` whenever a table is between hands
and carries out its moves; a table in `hold` deals no hand until a later plan releases it.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from felt_engine.hand import next_button
from felt_tournament.places import Bust

MoveReason = Literal["balance", "break", "final_table"]


@dataclass(frozen=True)
class Table:
    """A tournament table: seat number -> player, and the seat that had the button in the last
    hand dealt there (None before its first hand: the table gives it to the lowest seat)."""

    number: int
    seats: Mapping[int, str] = field(default_factory=dict)
    button: int | None = None


@dataclass(frozen=True)
class Blinds:
    button: int
    small: int
    big: int


@dataclass(frozen=True)
class Move:
    """One player's move, for the tournament's log."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: MoveReason


@dataclass(frozen=True)
class Plan:
    """The seating after the moves (broken tables gone), the moves in order, and the tables that
    deal no hand now: short tables waiting for a player, or every table while the final table
    waits for the others to finish their hands."""

    tables: tuple[Table, ...]
    moves: tuple[Move, ...] = ()
    hold: frozenset[int] = frozenset()


def tables_needed(players: int, seats_per_table: int) -> int:
    """The fewest tables that seat `players`."""
    return max(1, -(-players // seats_per_table))


def draw(players: Sequence[str], seats_per_table: int, rng: random.Random) -> tuple[Table, ...]:
    """The starting seating: the fewest tables, sizes differing by at most one, every player at a
    random table and seat (a shuffled field dealt out over the tables, each at random seats)."""
    entrants = list(players)
    rng.shuffle(entrants)
    n = tables_needed(len(entrants), seats_per_table)
    return tuple(
        Table(number, dict(zip(rng.sample(range(1, seats_per_table + 1), len(group)), group)))
        for number, group in ((i + 1, entrants[i::n]) for i in range(n))
    )


def next_blinds(table: Table) -> Blinds:
    """Button, small and big blind of the table's next hand (two players or more): heads-up the
    button posts the small blind."""
    order = sorted(table.seats)
    button = next_button(table.button, order)
    i = order.index(button)
    if len(order) == 2:
        return Blinds(button, button, order[1 - i])
    return Blinds(button, order[(i + 1) % len(order)], order[(i + 2) % len(order)])


def hands_to_big_blind(table: Table, seat: int) -> int:
    """In how many hands the player in `seat` posts the big blind (1: the next hand), nobody
    leaving meanwhile."""
    for hands in range(1, len(table.seats) + 1):
        blinds = next_blinds(table)
        if blinds.big == seat:
            return hands
        table = replace(table, button=blinds.button)
    raise ValueError(f"seat {seat} is not at table {table.number}")


def worst_seat(table: Table, seats_per_table: int) -> int:
    """The empty seat worst for blinds (TDA): the one whose player would post the big blind
    soonest, the lowest-numbered of seats equally soon. A seat that would post the small blind
    next posts the big blind last, so it is taken only when no other seat is empty."""
    empty = [s for s in range(1, seats_per_table + 1) if s not in table.seats]
    if not table.seats:
        return empty[0]
    return min(empty, key=lambda s: (hands_to_big_blind(replace(table, seats={**table.seats, s: "?"}), s), s))


def hand_for_hand(prizes: Sequence[int], players_left: int, tables: int) -> bool:
    """Whether play is hand-for-hand: over several tables, the next player out is the last to win
    nothing (the bubble). `prizes` are the places' prizes, first place first."""
    paid = sum(1 for p in prizes if p > 0)
    return tables > 1 and 0 < paid == players_left - 1


@dataclass(frozen=True)
class HandForHand:
    """Hand-for-hand play: every table plays the round's hand, and no table starts the next round's
    before every table has finished this one. `started`: the tables that dealt this round's hand."""

    round: int = 1
    started: frozenset[int] = frozenset()

    def may_deal(self, table: int, busy: Collection[int], able: Collection[int]) -> bool:
        """May `table` (between hands) deal now? `busy`: the tables in a hand; `able`: the tables
        that can deal (two players or more, not holding). A hand dealt before hand-for-hand began
        ends before the first round starts; a table that becomes able mid-round joins it."""
        if table in busy:
            return False
        return self._over(busy, able) or (table not in self.started and set(busy) <= self.started)

    def deal(self, table: int, busy: Collection[int], able: Collection[int]) -> HandForHand:
        """The state once `table` deals: its hand is in `round` of the result."""
        if self._over(busy, able):
            return HandForHand(self.round + 1, frozenset({table}))
        return replace(self, started=self.started | {table})

    def _over(self, busy: Collection[int], able: Collection[int]) -> bool:
        return bool(self.started) and not busy and set(able) <= self.started


def one_round(busts: Mapping[int, Sequence[Bust]]) -> list[Bust]:
    """The players a hand-for-hand round eliminated at every table, as one hand for
    `places.standings` (placed by their starting stacks, equal stacks sharing); a shared prize's
    odd chips go by table number, then clockwise from each table's button."""
    merged = [b for number in sorted(busts) for b in sorted(busts[number], key=lambda b: b.order)]
    return [replace(b, order=i) for i, b in enumerate(merged)]


def eliminate(tables: Iterable[Table], players: Collection[str]) -> tuple[Table, ...]:
    """The seating without the players a hand eliminated."""
    return tuple(replace(t, seats={s: p for s, p in t.seats.items() if p not in players}) for t in tables)


def plan(tables: Iterable[Table], seats_per_table: int, between_hands: Collection[int], rng: random.Random) -> Plan:
    """What to do now. Players move only from tables between hands. In order:

    - the final table: once the players left fit one table and every table is between hands, all
      of them draw seats at the lowest-numbered table (until then every idle table holds);
    - breaking: the highest-numbered tables beyond the fewest that seat everyone break as soon as
      they are between hands; each of their players, in random order, draws a random table among
      the remaining ones with the fewest players, then a random empty seat there;
    - balancing: while the remaining tables' largest has 2 or more players than the smallest, the
      player who would be big blind next at a largest table between hands (the highest-numbered)
      moves to the smallest table (the lowest-numbered) into its worst seat for blinds; a table
      still 2 or more short of the largest holds.
    """
    state = {t.number: t for t in tables}
    keep = sorted(state)[: tables_needed(sum(len(t.seats) for t in state.values()), seats_per_table)]
    if len(state) > 1 and len(keep) == 1:
        if not set(state) <= set(between_hands):
            return Plan(tuple(state.values()), hold=frozenset(between_hands) & frozenset(state))
        return _final_table(state, keep[0], seats_per_table, rng)
    moves = _break(state, keep, seats_per_table, between_hands, rng)
    while True:
        sizes = {k: len(state[k].seats) for k in keep}
        most, fewest = max(sizes.values()), min(sizes.values())
        sources = [k for k in keep if sizes[k] == most and k in between_hands]
        if most - fewest < 2 or not sources:
            hold = frozenset(k for k in keep if sizes[k] <= most - 2)
            return Plan(tuple(state[k] for k in sorted(state)), tuple(moves), hold)
        source, to = state[max(sources)], min(k for k in keep if sizes[k] == fewest)
        seat = next_blinds(source).big
        dest = worst_seat(state[to], seats_per_table)
        moves.append(_seat(state, Move(source.seats[seat], source.number, seat, to, dest, "balance")))


def _break(
    state: dict[int, Table], keep: list[int], seats_per_table: int, between_hands: Collection[int], rng: random.Random
) -> list[Move]:
    """Break the tables beyond `keep` that are between hands, into `state`; their moves."""
    moves: list[Move] = []
    for number in sorted(set(state) - set(keep) & set(between_hands)):
        for seat, player in _shuffled(state.pop(number).seats, rng):
            moves.append(
                _seat(state, Move(player, number, seat, *_draw_seat(state, keep, seats_per_table, rng), "break"))
            )
    return moves


def arrive(
    tables: Iterable[Table], player: str, seats_per_table: int, rng: random.Random
) -> tuple[tuple[Table, ...], int, int]:
    """A late registration or a re-entry: the seating with `player` drawn into it as a broken
    table's players are (TDA: the same draw as everyone's), with the table and seat drawn. When
    every table is full, a table opens, numbered after the highest, for the plan to balance."""
    state = {t.number: t for t in tables}
    if all(len(t.seats) >= seats_per_table for t in state.values()):
        opened = max(state, default=0) + 1
        state[opened] = Table(opened)
    number, seat = _draw_seat(state, sorted(state), seats_per_table, rng)
    state[number] = replace(state[number], seats={**state[number].seats, seat: player})
    return tuple(state[k] for k in sorted(state)), number, seat


def _draw_seat(state: dict[int, Table], among: list[int], seats_per_table: int, rng: random.Random) -> tuple[int, int]:
    """A random table among those with the fewest players, then a random empty seat there; not a
    seat that would take the next button while another is empty (TDA: not dealt in between the
    small blind and the button; at a table whose button moves to the next occupied seat, that
    seat would have the last hand's blinds posted again)."""
    smallest = min(len(state[k].seats) for k in among)
    to = state[rng.choice([k for k in among if len(state[k].seats) == smallest])]
    empty = [s for s in range(1, seats_per_table + 1) if s not in to.seats]
    fair = [s for s in empty if not _takes_button(to, s)]
    return to.number, rng.choice(fair or empty)


def _takes_button(table: Table, seat: int) -> bool:
    joined = replace(table, seats={**table.seats, seat: "?"})
    return table.button is not None and len(joined.seats) > 2 and next_blinds(joined).button == seat


def _final_table(state: dict[int, Table], final: int, seats_per_table: int, rng: random.Random) -> Plan:
    """Everyone draws a seat at table `final`: one redraw (its moves list who sits where, to be
    carried out together, not one by one)."""
    everyone = [
        (number, seat, player) for number in sorted(state) for seat, player in sorted(state[number].seats.items())
    ]
    drawn = rng.sample(range(1, seats_per_table + 1), len(everyone))
    moves = tuple(
        Move(player, number, seat, final, to, "final_table")
        for (number, seat, player), to in zip(everyone, drawn)
        if (number, seat) != (final, to)
    )
    seats = {to: player for (_, _, player), to in zip(everyone, drawn)}
    return Plan((Table(final, seats),), moves)


def _shuffled(seats: Mapping[int, str], rng: random.Random) -> list[tuple[int, str]]:
    out = sorted(seats.items())
    rng.shuffle(out)
    return out


def _seat(state: dict[int, Table], move: Move) -> Move:
    """Carry out `move` on `state` (the source may be gone already: a broken table)."""
    if move.from_table in state:
        src = state[move.from_table]
        state[src.number] = replace(src, seats={s: p for s, p in src.seats.items() if s != move.from_seat})
    dest = state[move.to_table]
    state[dest.number] = replace(dest, seats={**dest.seats, move.to_seat: move.player})
    return move
