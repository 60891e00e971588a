"""Places and prizes as pure functions (docs/tournaments.md, Places and Prizes)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from felt_contracts.tournament import PayoutTier
from felt_tournament.places import Bust, Finish, standings
from felt_tournament.prizes import award, place_prizes, tier_for

P = [Decimal(50), Decimal(30), Decimal(20)]


def test_earlier_busts_finish_lower_and_the_winner_first() -> None:
    out = standings([[Bust("f", 100)], [Bust("e", 900)], [Bust("d", 50)]], "a")
    assert out == [Finish(("a",), 1, 1), Finish(("d",), 2, 2), Finish(("e",), 3, 3), Finish(("f",), 4, 4)]


def test_busts_in_one_hand_are_placed_by_their_starting_stacks() -> None:
    out = standings([[Bust("small", 10), Bust("big", 300), Bust("mid", 40)]], "w")
    assert [f.entry_ids for f in out] == [("w",), ("big",), ("mid",), ("small",)]
    assert [f.best for f in out] == [1, 2, 3, 4]


def test_equal_starting_stacks_tie_and_share_the_places() -> None:
    out = standings([[Bust("x", 100, order=2), Bust("y", 100, order=1)]], "w")
    assert out == [Finish(("w",), 1, 1), Finish(("y", "x"), 2, 3)]  # in their order from the button


def test_an_entry_is_placed_once() -> None:
    with pytest.raises(ValueError):
        standings([[Bust("a", 1)], [Bust("a", 1)]], "w")
    with pytest.raises(ValueError):
        standings([[Bust("w", 1)]], "w")


def test_rounding_leftovers_go_to_the_best_places() -> None:
    assert place_prizes(100, P) == [50, 30, 20]
    assert place_prizes(101, P) == [51, 30, 20]  # 50.5 / 30.3 / 20.2: one chip left, to first
    assert place_prizes(7, [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]) == [3, 2, 2]


def test_tied_entries_share_the_prizes_of_their_places_with_the_odd_chip_in_order() -> None:
    finishes = standings([[Bust("x", 100, order=1), Bust("y", 100, order=0)]], "w")
    prizes = award(101, P, finishes)  # places 2 and 3 pay 30 + 20 = 50: 25 each
    assert prizes == {"w": 51, "y": 25, "x": 25}
    odd = award(
        100, [Decimal(50), Decimal(25), Decimal(25)], standings([[Bust("a", 5), Bust("b", 5), Bust("c", 5)]], "w")
    )
    assert odd == {"w": 50, "a": 17, "b": 17, "c": 16}  # places 2-4 share 50: 16 each and 2 odd chips


def test_a_tie_across_the_money_shares_only_the_paid_places() -> None:
    finishes = standings([[Bust("z", 1)], [Bust("x", 100), Bust("y", 100)]], "w")  # x, y tie for 2nd-3rd
    assert award(100, [Decimal(70), Decimal(30)], finishes) == {"w": 70, "x": 15, "y": 15, "z": 0}


def test_the_tier_is_the_largest_not_above_the_field() -> None:
    tiers = [PayoutTier(min_entrants=2, percents=[Decimal(100)]), PayoutTier(min_entrants=6, percents=P)]
    assert tier_for(tiers, 2).min_entrants == 2 and tier_for(tiers, 5).min_entrants == 2
    assert tier_for(tiers, 6).min_entrants == 6 and tier_for(tiers, 60).min_entrants == 6


@given(
    pool=st.integers(0, 10**9),
    raw=st.lists(st.integers(1, 10_000), min_size=1, max_size=12),
    stacks=st.lists(st.integers(1, 5), min_size=12, max_size=20),
    hands=st.integers(1, 5),
)
def test_prizes_always_sum_to_the_pool_and_never_favour_a_worse_place(pool, raw, stacks, hands) -> None:
    cents = [r * 10_000 // sum(raw) for r in raw]
    cents[0] += 10_000 - sum(cents)
    percents = sorted((Decimal(c) / 100 for c in cents if c), reverse=True)
    busts = [Bust(f"e{i}", s, order=i) for i, s in enumerate(stacks)]
    finishes = standings([busts[i::hands] for i in range(hands)], "w")
    prizes = award(pool, percents, finishes)
    assert sum(prizes.values()) == pool and len(prizes) == len(stacks) + 1
    for better, worse in zip(finishes, finishes[1:]):
        assert min(prizes[e] for e in better.entry_ids) >= max(prizes[e] for e in worse.entry_ids)
