"""Many hands at once: ``rank_hands`` is :func:`felt_engine.evaluator.rank_hand` over a numpy
array, for Monte Carlo equity (thousands of deals per decision).

The same packed card values and the same two tables as the scalar evaluator, read with vector
operations: one gather-and-sum per hand gives the rank multiset's base-5 key and the suit
counters; the key is found with one ``searchsorted`` in the sorted keys of the non-flush table;
a hand with five or more cards of one suit reads the flush table at the 13-bit mask of that
suit's ranks (at most seven cards: nothing better than that flush can
coexist with it). Values are identical to ``rank_hand`` (tested on random hands).
"""

from __future__ import annotations

import numpy as np

from felt_engine.evaluator import _FLUSH, _FLUSH_BITS, _NONFLUSH, _OFFSET, _RANK_MASK, _SUIT_SHIFT, _VALUE

__all__ = ["rank_hands"]

_KEYS = np.array(sorted(_NONFLUSH), dtype=np.int64)
_VALUES = np.array([_NONFLUSH[k] for k in sorted(_NONFLUSH)], dtype=np.int16)
_FLUSH_VALUES = np.array(_FLUSH, dtype=np.int16)
_PACKED = np.array([_VALUE[c] for c in range(52)], dtype=np.int64)  # rank digit + suit counter, as in rank_hand
_CARDS = np.arange(52)
_SUIT = (_CARDS & 3).astype(np.int8)
_RANK_BIT = (1 << (_CARDS >> 2)).astype(np.int32)


def rank_hands(cards: np.ndarray) -> np.ndarray:
    """Strength of each row of ``cards`` (shape ``(n, k)``, 5 <= k <= 7 distinct card ints per
    row): an int16 array of values 1..7462, higher wins."""
    cards = np.asarray(cards)
    if cards.ndim != 2 or not 5 <= cards.shape[1] <= 7:
        raise ValueError(f"rank_hands needs an (n, 5..7) array, got shape {cards.shape}")
    packed = _PACKED[cards].sum(axis=1) + _OFFSET
    out: np.ndarray = _VALUES[np.searchsorted(_KEYS, packed & _RANK_MASK)]
    flush = (packed & _FLUSH_BITS) != 0
    if flush.any():
        rows = cards[flush]
        counters = packed[flush] >> _SUIT_SHIFT
        suit = np.select([counters & 0x8 != 0, counters & 0x80 != 0, counters & 0x800 != 0], [0, 1, 2], 3)
        mask = np.where(_SUIT[rows] == suit[:, None], _RANK_BIT[rows], 0).sum(axis=1)
        out[flush] = _FLUSH_VALUES[mask]
    return out
