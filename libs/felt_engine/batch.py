"""Many hands at once: ``rank_hands`` is :func:`felt_engine.evaluator.rank_hand` over a numpy
array, for Monte Carlo equity (thousands of deals per decision).

The same two tables as the scalar evaluator, read with vector operations: the rank multiset's
base-5 key is a sum of per-card powers, found with one ``searchsorted`` in the sorted keys of
the non-flush table; a hand with five or more cards of one suit reads the flush table at the
13-bit mask of that suit's ranks (at most seven cards: nothing better than that flush can
coexist with it). Values are identical to ``rank_hand`` (tested on random hands).
"""

from __future__ import annotations

import numpy as np

from felt_engine.evaluator import _FLUSH, _NONFLUSH

__all__ = ["rank_hands"]

_KEYS = np.array(sorted(_NONFLUSH), dtype=np.int64)
_VALUES = np.array([_NONFLUSH[k] for k in sorted(_NONFLUSH)], dtype=np.int16)
_FLUSH_VALUES = np.array(_FLUSH, dtype=np.int16)
_CARDS = np.arange(52)
_POWER = (5 ** (_CARDS >> 2)).astype(np.int64)  # card -> its rank's base-5 digit
_SUIT = (_CARDS & 3).astype(np.int8)
_RANK_BIT = (1 << (_CARDS >> 2)).astype(np.int32)
_SUIT_ONE_HOT = np.eye(4, dtype=np.int8)[_SUIT]  # card -> one-hot suit


def rank_hands(cards: np.ndarray) -> np.ndarray:
    """Strength of each row of ``cards`` (shape ``(n, k)``, 5 <= k <= 7 distinct card ints per
    row): an int16 array of values 1..7462, higher wins."""
    cards = np.asarray(cards)
    if cards.ndim != 2 or not 5 <= cards.shape[1] <= 7:
        raise ValueError(f"rank_hands needs an (n, 5..7) array, got shape {cards.shape}")
    out = _VALUES[np.searchsorted(_KEYS, _POWER[cards].sum(axis=1))]
    counts = _SUIT_ONE_HOT[cards].sum(axis=1)  # (n, 4) cards per suit
    flush = counts.max(axis=1) >= 5
    if flush.any():
        rows = cards[flush]
        suit = counts[flush].argmax(axis=1)
        mask = np.where(_SUIT[rows] == suit[:, None], _RANK_BIT[rows], 0).sum(axis=1)
        out[flush] = _FLUSH_VALUES[mask]
    return out
