"""A small fixed-seed run of the match harness (the full run and its numbers are in
docs/bots.md): the order Hard > Normal > Easy and every level ahead of both baselines, and the
mirrored deals really cancel the cards."""

from __future__ import annotations

import random

import pytest

from felt_bots.baselines import calling_station
from felt_bots.harness import REQUIRED, match, play_hand
from felt_engine import Deck

#: mirrored deals per pairing: the levels are closer to each other than to the baselines
DEALS = {("hard", "normal"): 300, ("normal", "easy"): 600}


@pytest.mark.parametrize("a, b", REQUIRED, ids=[f"{a}-{b}" for a, b in REQUIRED])
def test_fixed_seed_run_keeps_the_order(a: str, b: str) -> None:
    result = match(a, b, DEALS.get((a, b), 80), seed=1)
    assert result.bb_per_100 > 0, result.line()


def test_mirrored_deals_cancel_between_identical_players() -> None:
    deck = Deck.shuffled(random.Random(9))
    players = {1: calling_station, 2: calling_station}
    first = play_hand("nlhe-1", players, deck, 1, 100, random.Random(0))
    second = play_hand("nlhe-1", players, deck, 1, 100, random.Random(0))
    assert first[1] + second[2] == first[1] + first[2] == 0 or first == second
    assert match("station", "station", 20, seed=1).bb_per_100 == 0


@pytest.mark.parametrize("profile", ["ante-nl-1", "draw5-fl", "flhe-1"])
def test_hard_beats_the_calling_station_at_other_profiles(profile: str) -> None:
    result = match("hard", "station", 60, profile=profile, seed=4)
    assert result.bb_per_100 > 0, result.line()
