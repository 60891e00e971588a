"""The batch evaluator gives exactly the scalar evaluator's values."""

from __future__ import annotations

import random

import numpy as np
import pytest

from felt_engine import rank_hand
from felt_engine.batch import rank_hands
from felt_engine.cards import parse_cards


@pytest.mark.parametrize("k", [5, 6, 7])
def test_rank_hands_equals_rank_hand_on_random_hands(k: int) -> None:
    rng = random.Random(k)
    hands = np.array([rng.sample(range(52), k) for _ in range(20000)])
    assert rank_hands(hands).tolist() == [rank_hand(tuple(h)) for h in hands.tolist()]


def test_flushes_straight_flushes_and_wheels() -> None:
    cases = [
        "As Ks Qs Js Ts 2c 3d",
        "5h 4h 3h 2h Ah Kc Kd",
        "Ah Kh 9h 4h 2h Ac Ad",
        "As 2d 3c 4h 5s 9d 9c",
        "Kh Kd Kc 9h 9d 2h 3h",
    ]
    hands = np.array([parse_cards(c) for c in cases])
    assert rank_hands(hands).tolist() == [rank_hand(parse_cards(c)) for c in cases]


def test_rejects_a_wrong_shape() -> None:
    with pytest.raises(ValueError):
        rank_hands(np.zeros((3, 4), dtype=int))
