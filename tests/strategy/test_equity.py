"""Monte Carlo equity agrees with eval7's compiled Monte Carlo (400k deals; its
`py_hand_vs_range_exact` disagrees with both on flops, so it is not the reference); ranges
narrow as they should."""

from __future__ import annotations

import eval7
import numpy as np
import pytest

from felt_bots.equity import draw5_equity, holdem_equity
from felt_engine.cards import parse_cards

EVERY_HAND = eval7.HandRange("22+, A2+, K2+, Q2+, J2+, T2+, 92+, 82+, 72+, 62+, 52+, 42+, 32")


@pytest.mark.parametrize("hole, board", [("Ah Kh", "2h 7h 9c"), ("7c 2d", "Ks Qs 3d 4h"), ("Ts Td", "")])
def test_heads_up_equity_matches_eval7(hole: str, board: str) -> None:
    ours = holdem_equity(parse_cards(hole), parse_cards(board), [1.0], 40_000, np.random.default_rng(1))
    cards = [eval7.Card(c) for c in hole.split()], [eval7.Card(c) for c in board.split()]
    theirs = eval7.py_hand_vs_range_monte_carlo(cards[0], EVERY_HAND, cards[1], 400_000)
    assert ours == pytest.approx(theirs, abs=0.012)


def test_narrower_ranges_lower_a_medium_hands_equity() -> None:
    rng = np.random.default_rng(2)
    hole, board = parse_cards("9s 9d"), parse_cards("Ah 7c 2d")
    wide, narrow = (holdem_equity(hole, board, [w], 20_000, rng) for w in (1.0, 0.2))
    assert narrow < wide - 0.2
    assert holdem_equity(parse_cards("As Ad"), (), [0.05], 20_000, rng) < holdem_equity(
        parse_cards("As Ad"), (), [1.0], 20_000, rng
    )


def test_draw5_keeping_a_pair_beats_keeping_one_card() -> None:
    rng = np.random.default_rng(3)
    hand = parse_cards("As Ad Kc 7h 2d")
    assert (
        draw5_equity(hand, parse_cards("As Ad"), [1.0], 20_000, rng)
        > draw5_equity(hand, parse_cards("Kc"), [1.0], 20_000, rng) + 0.2
    )
