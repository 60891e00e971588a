"""Seating, balancing, breaking tables and hand-for-hand as pure decisions (docs/tournaments.md,
Tables), and a property test that plays tournaments at random through them."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from felt_tournament.places import Bust, standings
from felt_tournament.prizes import award
from felt_tournament.seating import (
    Blinds,
    HandForHand,
    Move,
    Table,
    arrive,
    draw,
    eliminate,
    hand_for_hand,
    hands_to_big_blind,
    next_blinds,
    one_round,
    plan,
    tables_needed,
    worst_seat,
)

RNG = random.Random(7)


def seated(*seats: int, number: int = 1, button: int | None = None, prefix: str = "") -> Table:
    return Table(number, {s: f"{prefix or f't{number}-'}{s}" for s in seats}, button)


def sizes(tables: tuple[Table, ...]) -> list[int]:
    return [len(t.seats) for t in tables]


# --- the start ---------------------------------------------------------------------------------


@settings(deadline=None)  # a loaded shared machine
@given(entrants=st.integers(2, 200), seats=st.integers(2, 9), rng=st.randoms(use_true_random=False))
def test_the_start_seats_everyone_at_the_fewest_tables_differing_by_at_most_one(entrants, seats, rng) -> None:
    players = [f"p{i}" for i in range(entrants)]
    tables = draw(players, seats, rng)
    assert len(tables) == -(-entrants // seats) == tables_needed(entrants, seats)
    assert max(sizes(tables)) - min(sizes(tables)) <= 1
    assert sorted(p for t in tables for p in t.seats.values()) == sorted(players)
    assert all(1 <= s <= seats for t in tables for s in t.seats)
    assert [t.number for t in tables] == list(range(1, len(tables) + 1))


def test_the_start_draws_tables_and_seats_at_random() -> None:
    rng = random.Random(1)
    where = Counter((t.number, s) for _ in range(600) for t in draw(list("abcdefghijklmnopqr"), 9, rng)
                    for s, p in t.seats.items() if p == "a")  # fmt: skip
    assert len(where) == 18  # both tables, every seat
    assert min(where.values()) > 600 / 18 / 2


# --- blinds ------------------------------------------------------------------------------------


def test_the_blinds_follow_the_tables_moving_button() -> None:
    assert next_blinds(seated(2, 4, 7)) == Blinds(2, 4, 7)  # no hand yet: the lowest seat has the button
    assert next_blinds(seated(2, 4, 7, button=4)) == Blinds(7, 2, 4)
    assert next_blinds(seated(2, 4, 7, button=5)) == Blinds(7, 2, 4)  # the last button's seat left
    assert next_blinds(seated(3, 8, button=3)) == Blinds(8, 8, 3)  # heads-up: the button posts the small blind
    assert [hands_to_big_blind(seated(2, 4, 7, button=4), s) for s in (4, 7, 2)] == [1, 2, 3]


# --- balancing ---------------------------------------------------------------------------------


def test_balancing_moves_the_next_big_blind_into_the_seat_that_posts_it_soonest() -> None:
    full = seated(*range(1, 10), button=3)  # next hand: button 4, small 5, big 6
    short = seated(1, 2, 3, 5, 6, 7, number=2, button=1)  # next hand: button 2, small 3, big 5
    out = plan([full, short], 9, {1, 2}, RNG)
    # seat 4, between the small and the big blind, is the big blind of table 2's next hand
    assert out.moves == (Move("t1-6", 1, 6, 2, 4, "balance"),)
    assert sizes(out.tables) == [8, 7] and out.hold == frozenset()
    assert next_blinds(out.tables[1]).big == 4
    assert next_blinds(out.tables[0]).big == 7  # the next player at table 1 posts it instead


def test_the_worst_seat_is_never_the_small_blind() -> None:
    table = seated(1, 3, 4, 6, button=6)  # next hand: button 1, small 3, big 4; 2 would post the small blind
    assert worst_seat(table, 9) == 5  # big blind in two hands; 2 in five, 7-9 (the button first) in four
    assert worst_seat(table, 9) != 2
    assert worst_seat(seated(1, 2, 3, 4, 6, 7, 8, 9, button=9), 9) == 5  # a lone empty seat is taken


def test_tables_balance_at_two_players_apart_and_not_at_one() -> None:
    assert plan([seated(*range(1, 10)), seated(*range(1, 9), number=2)], 9, {1, 2}, RNG).moves == ()
    out = plan([seated(*range(1, 10)), seated(*range(1, 8), number=2)], 9, {1, 2}, RNG)
    assert len(out.moves) == 1 and sizes(out.tables) == [8, 8]
    out = plan([seated(*range(1, 10)), seated(*range(1, 10), number=2), seated(1, 2, 3, 4, 5, 6, number=3)], 9,
               {1, 2, 3}, RNG)  # fmt: skip
    assert [(m.from_table, m.to_table) for m in out.moves] == [(2, 3), (1, 3)] and sizes(out.tables) == [8, 8, 8]


def test_a_short_table_holds_while_the_largest_is_in_a_hand() -> None:
    tables = [seated(*range(1, 10)), seated(*range(1, 9), number=2), seated(1, 2, 3, 4, 5, 6, 7, number=3)]
    out = plan(tables, 9, {2, 3}, RNG)  # table 1 (9 players) is in a hand
    assert out.moves == () and out.hold == frozenset({3})
    out = plan(out.tables, 9, {1, 2, 3}, RNG)  # its hand over: a player moves, nobody holds
    assert [(m.from_table, m.to_table) for m in out.moves] == [(1, 3)] and out.hold == frozenset()


# --- breaking and the final table --------------------------------------------------------------


def test_the_highest_numbered_table_breaks_into_the_emptiest_tables_at_random_seats() -> None:
    tables = [seated(1, 2, 3, 4, 5, 6), seated(1, 2, 3, 4, 5, 6, number=2), seated(1, 3, 5, 7, 9, number=3)]
    out = plan(tables, 9, {1, 2, 3}, random.Random(3))  # 17 players fit two tables of nine
    assert [t.number for t in out.tables] == [1, 2] and sorted(sizes(out.tables)) == [8, 9]
    assert sorted(m.player for m in out.moves) == [f"t3-{s}" for s in (1, 3, 5, 7, 9)]
    assert {m.reason for m in out.moves} == {"break"} and {m.to_table for m in out.moves} == {1, 2}
    draws = {tuple(plan(tables, 9, {1, 2, 3}, random.Random(n)).moves) for n in range(20)}
    assert len(draws) > 10  # tables, seats and the order players draw in are random


def test_a_table_in_a_hand_breaks_when_its_hand_is_over() -> None:
    tables = [seated(1, 2, 3, 4, 5, 6), seated(1, 2, 3, 4, 5, 6, number=2), seated(1, 3, 5, 7, 9, number=3)]
    out = plan(tables, 9, {1, 2}, RNG)
    assert out.moves == () and len(out.tables) == 3
    assert len(plan(out.tables, 9, {1, 2, 3}, RNG).tables) == 2


def test_the_final_table_draws_every_seat_once_every_table_is_between_hands() -> None:
    tables = [seated(1, 2, 3, 4, 5), seated(2, 4, 6, 8, number=2)]  # nine players fit one table of nine
    waiting = plan(tables, 9, {1}, RNG)
    assert waiting.moves == () and waiting.hold == frozenset({1})
    out = plan(tables, 9, {1, 2}, random.Random(5))
    assert len(out.tables) == 1 and out.tables[0].number == 1 and len(out.tables[0].seats) == 9
    assert {m.reason for m in out.moves} == {"final_table"}
    assert {m.player for m in out.moves} >= {p for p in tables[1].seats.values()}
    before = {p: (t.number, s) for t in tables for s, p in t.seats.items()}
    assert all(before[m.player] == (m.from_table, m.from_seat) for m in out.moves)
    assert [plan([seated(1, 4, 6)], 9, {1}, RNG).moves] == [()]  # one table from the start: no draw


def test_a_late_entry_draws_a_seat_at_a_table_with_the_fewest_players() -> None:
    tables = [seated(*range(1, 10)), seated(1, 2, 3, 5, 6, 7, 8, 9, number=2), seated(*range(2, 10), number=3)]
    drawn = {arrive(tables, "late", 9, random.Random(n))[1:] for n in range(30)}
    assert drawn == {(2, 4), (3, 1)}  # tables 2 and 3 have eight players, each one empty seat
    after, number, seat = arrive(tables, "late", 9, RNG)
    assert after[number - 1].seats[seat] == "late" and sizes(after)[number - 1] == 9


def test_a_drawn_seat_never_takes_the_next_button_while_another_is_empty() -> None:
    table = seated(1, 3, 5, 7, button=3)  # next hand: button 5; a player in 4 would take it
    assert next_blinds(replace(table, seats={**table.seats, 4: "x"})) == Blinds(4, 5, 7)  # 5 and 7 post again
    drawn = {arrive([table], "late", 9, random.Random(n))[2] for n in range(60)}
    assert drawn == {2, 6, 8, 9}
    assert arrive([seated(1, 2, 3, 5, 6, 7, 8, 9, button=3)], "late", 9, RNG)[2] == 4  # the only seat left


def test_a_late_entry_opens_a_table_when_all_are_full_and_the_plan_balances_it() -> None:
    after, number, seat = arrive([seated(*range(1, 10)), seated(*range(1, 10), number=2)], "late", 9, RNG)
    assert (number, sizes(after)) == (3, [9, 9, 1]) and 1 <= seat <= 9
    out = plan(after, 9, {1, 2, 3}, RNG)
    assert sorted(sizes(out.tables)) == [6, 6, 7] and {m.to_table for m in out.moves} == {3}


# --- hand-for-hand -----------------------------------------------------------------------------


def test_hand_for_hand_is_the_bubble_over_several_tables() -> None:
    prizes = [500, 300, 200, 0]  # three places paid (a place whose percent rounds to no chip pays nothing)
    assert [hand_for_hand(prizes, left, 2) for left in (6, 5, 4, 3, 2)] == [False, False, True, False, False]
    assert not hand_for_hand(prizes, 4, 1)  # one table deals one hand at a time anyway
    assert not hand_for_hand([0, 0], 3, 2)  # nothing paid: no bubble


def test_hand_for_hand_waits_for_every_table_to_finish_its_hand() -> None:
    h = HandForHand()
    able = {1, 2, 3}
    assert not h.may_deal(1, busy={2}, able=able)  # table 2's hand from before hand-for-hand runs
    assert h.may_deal(1, busy=set(), able=able)
    h = h.deal(1, busy=set(), able=able)
    assert h.may_deal(2, busy={1}, able=able)  # the same round
    h = h.deal(2, busy={1}, able=able)
    assert not h.may_deal(1, busy={2}, able=able) and not h.may_deal(2, busy={1}, able=able)
    assert not h.may_deal(1, busy=set(), able=able)  # table 3 has not played this round
    assert h.may_deal(1, busy=set(), able={1, 2})  # table 3 cannot deal (one player): the round is over
    assert h.deal(1, busy=set(), able={1, 2}) == HandForHand(2, frozenset({1}))


def test_players_out_in_one_hand_for_hand_round_are_placed_by_starting_stacks_and_equal_stacks_share() -> None:
    round_ = one_round({2: [Bust("b", 300, order=1)], 1: [Bust("a", 300, order=4), Bust("c", 800, order=2)]})
    assert [b.entry_id for b in round_] == ["c", "a", "b"] and [b.order for b in round_] == [0, 1, 2]
    finishes = standings([[Bust("d", 50)], round_], "w")
    assert [(f.entry_ids, f.best, f.worst) for f in finishes] == [
        (("w",), 1, 1),
        (("c",), 2, 2),
        (("a", "b"), 3, 4),  # equal starting stacks at two tables tie
        (("d",), 5, 5),
    ]
    paid = award(1000, [Decimal(50), Decimal(30), Decimal(20)], finishes)
    assert paid == {"w": 500, "c": 300, "a": 100, "b": 100, "d": 0}  # third place's prize shared


# --- a tournament played at random -------------------------------------------------------------


def check_seating(tables: dict[int, Table], alive: set[str], seats: int) -> None:
    everyone = [p for t in tables.values() for p in t.seats.values()]
    assert Counter(everyone) == Counter(alive)  # every player seated, none at two tables (or two seats)
    assert all(1 <= s <= seats for t in tables.values() for s in t.seats)


@settings(max_examples=120, deadline=None)
@given(
    entrants=st.integers(2, 45),
    seats=st.integers(2, 9),
    paid=st.integers(1, 6),
    rng=st.randoms(use_true_random=False),
)
def test_a_tournament_played_at_random_keeps_every_seating_rule(entrants, seats, paid, rng) -> None:
    play_at_random(entrants, seats, paid, rng)


def test_twenty_seven_entrants_at_three_tables_balance_break_and_reach_a_final_table() -> None:
    h4h_total = 0
    for n in range(5):
        moves, h4h_hands = play_at_random(27, 9, 9, random.Random(n))  # the bubble at ten: two tables
        assert {"balance", "break", "final_table"} <= {m.reason for m in moves}
        assert all(m.from_table != m.to_table for m in moves if m.reason != "final_table")
        h4h_total += h4h_hands
    assert h4h_total >= 2


def play_at_random(entrants: int, seats: int, paid: int, rng: random.Random) -> tuple[list[Move], int]:
    """Tables deal and finish hands in any order; a finished hand busts some of its players; then
    the plan runs (hand-for-hand on the bubble), every rule checked at every step. A player misses
    a hand through a move when a hand ends at their table while they sit there not dealt in: at
    most one per move. The moves in order, and how many hands were dealt hand-for-hand."""
    alive = {f"p{i}" for i in range(entrants)}
    tables = {t.number: t for t in draw(sorted(alive), seats, rng)}
    running: dict[int, set[str]] = {}  # table -> the players dealt in its hand
    hold: frozenset[int] = frozenset()
    h4h: HandForHand | None = None
    missed: dict[str, int] = {}  # moved, not dealt in since -> hands ended at their table meanwhile
    log: list[Move] = []
    h4h_hands = 0
    for _ in range(5000):
        check_seating(tables, alive, seats)
        if len(alive) == 1:
            break
        keep = sorted(tables)[: tables_needed(len(alive), seats)]
        able = {n for n in tables if n not in hold and len(tables[n].seats) >= 2}
        dealable = [n for n in able - set(running) if h4h is None or h4h.may_deal(n, running, able)]
        kind, n = rng.choice([("end", n) for n in running] + [("deal", n) for n in dealable])
        if kind == "deal":
            assert n in keep and len(tables[n].seats) >= max(len(tables[k].seats) for k in keep) - 1
            if h4h is not None:
                h4h, h4h_hands = h4h.deal(n, running, able), h4h_hands + 1
            tables[n] = replace(tables[n], button=next_blinds(tables[n]).button)
            running[n] = set(tables[n].seats.values())
            for p in running[n]:
                missed.pop(p, None)
            continue
        dealt = running.pop(n)
        assert dealt == set(tables[n].seats.values()) - set(missed)  # nobody left a hand in play
        for p in set(tables[n].seats.values()) & set(missed):
            missed[p] += 1
            assert missed[p] <= 1
        winner = rng.choice(sorted(dealt))
        out = {p for p in dealt if p != winner and rng.random() < 0.3}
        alive -= out
        before = eliminate(tables.values(), out)
        step = plan(before, seats, set(tables) - set(running), rng)
        log += step.moves
        for move in step.moves:
            assert not any(move.player in d for d in running.values())
            missed[move.player] = 0  # counted per move
        tables = {t.number: t for t in step.tables}
        broken = {m.from_table for m in step.moves if m.reason != "balance"} - set(tables)
        assert len(tables) == len(before) - len(broken) >= tables_needed(len(alive), seats)  # breaking reduces them
        hold = step.hold
        if any(m.reason == "final_table" for m in step.moves) or len(tables) == 1:
            assert len(tables) == 1
        if not running:  # every table between hands: balanced, at the fewest tables
            assert max(sizes(step.tables)) - min(sizes(step.tables)) <= 1 and not hold
            assert len(tables) == tables_needed(len(alive), seats)
        on = hand_for_hand([1] * paid, len(alive), len(tables))
        h4h = (h4h or HandForHand()) if on else None
    assert len(alive) == 1
    return log, h4h_hands
