"""Poker hand evaluation for 5, 6 or 7 cards: one table lookup per hand.

``rank_hand`` returns an int in 1..7462: higher is stronger, equal means a tie (suits
never rank). The 7,462 values are exactly the distinct five-card hand classes in
strength order (1 = 7-5-4-3-2 high, 7462 = royal flush).

Why it is fast in pure Python: each card maps to one precomputed int that packs the
rank (as a base-5 digit, ``5**rank``) and its suit (a 4-bit counter per suit, biased by
3 so a count of 5+ sets that counter's top bit). Summing the 5-7 card ints gives, in
one integer, the rank multiset and "is there a flush". No flush: one dict lookup keyed
by the rank multiset (tables for 5, 6 and 7 cards built at import, best five-card hand
already resolved). Flush: with at most 7 cards nothing better than a flush can coexist
with one, and only one suit can have 5+ cards, so the suited ranks' 13-bit mask indexes
a second table. No 21-combination loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from itertools import combinations

from felt_engine.cards import RANK_NAMES, RANK_PLURALS


class HandClass(IntEnum):
    """Hand categories, weakest first. A royal flush is the top STRAIGHT_FLUSH."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").title().replace(" A ", " a ").replace(" Of ", " of ")


MIN_RANK = 1
MAX_RANK = 7462  # royal flush

_SUIT_SHIFT = 31  # 5**13 < 2**31: rank digits live below, suit counters above
_RANK_MASK = (1 << _SUIT_SHIFT) - 1
_OFFSET = sum(3 << (_SUIT_SHIFT + 4 * s) for s in range(4))
_FLUSH_BITS = sum(8 << (_SUIT_SHIFT + 4 * s) for s in range(4))
_P5 = tuple(5**r for r in range(13))
# Card int -> packed value. A dict, so a non-card (e.g. -1 or 52) raises KeyError.
_VALUE = {c: _P5[c >> 2] + (1 << (_SUIT_SHIFT + 4 * (c & 3))) for c in range(52)}

_WHEEL = (12, 0, 1, 2, 3)
_STRAIGHTS = [_WHEEL] + [tuple(range(t - 4, t + 1)) for t in range(4, 13)]  # weakest first


def _bits(ranks: Iterable[int]) -> int:
    m = 0
    for r in ranks:
        m |= 1 << r
    return m


def _key(ranks: Iterable[int]) -> int:
    return sum(_P5[r] for r in ranks)


def _build() -> tuple[dict[int, int], list[int], list[tuple[HandClass, tuple[int, ...]]]]:
    """Assign values 1..7462 in strength order; return (non-flush dict, flush list, info)."""
    nonflush: dict[int, int] = {}
    flush5: dict[int, int] = {}  # 5-bit suited rank mask -> value
    info: list[tuple[HandClass, tuple[int, ...]]] = [(HandClass.HIGH_CARD, ())]
    straight_masks = {_bits(s) for s in _STRAIGHTS}
    # Five distinct ranks that are not a straight, weakest first (compare high to low).
    plain = sorted((c[::-1] for c in combinations(range(13), 5) if _bits(c) not in straight_masks))

    def add(cls: HandClass, ranks: tuple[int, ...], table: dict[int, int], key: int) -> None:
        table[key] = len(info)
        info.append((cls, ranks))

    for five in plain:
        add(HandClass.HIGH_CARD, five, nonflush, _key(five))
    for p in range(13):
        rest = [r for r in range(13) if r != p]
        for kick in sorted(c[::-1] for c in combinations(rest, 3)):
            add(HandClass.PAIR, (p, p) + kick, nonflush, _key((p, p) + kick))
    for hi in range(13):
        for lo in range(hi):
            for k in range(13):
                if k != hi and k != lo:
                    add(HandClass.TWO_PAIR, (hi, hi, lo, lo, k), nonflush, _key((hi, hi, lo, lo, k)))
    for t in range(13):
        rest = [r for r in range(13) if r != t]
        for pair in sorted(c[::-1] for c in combinations(rest, 2)):  # two kickers
            add(HandClass.THREE_OF_A_KIND, (t, t, t) + pair, nonflush, _key((t, t, t) + pair))
    for s in _STRAIGHTS:
        add(HandClass.STRAIGHT, s[::-1], nonflush, _key(s))
    for five in plain:
        add(HandClass.FLUSH, five, flush5, _bits(five))
    for t in range(13):
        for p in range(13):
            if p != t:
                add(HandClass.FULL_HOUSE, (t,) * 3 + (p,) * 2, nonflush, _key((t,) * 3 + (p,) * 2))
    for q in range(13):
        for k in range(13):
            if k != q:
                add(HandClass.FOUR_OF_A_KIND, (q,) * 4 + (k,), nonflush, _key((q,) * 4 + (k,)))
    for s in _STRAIGHTS:
        add(HandClass.STRAIGHT_FLUSH, s[::-1], flush5, _bits(s))
    assert len(info) - 1 == MAX_RANK

    # 6- and 7-card rank multisets: best of the multisets with one card fewer.
    layer = nonflush.copy()
    for _ in range(2):
        bigger: dict[int, int] = {}
        get = bigger.get
        for k, v in layer.items():
            for r in range(13):
                p = _P5[r]
                if (k // p) % 5 < 4:
                    k2 = k + p
                    if get(k2, 0) < v:
                        bigger[k2] = v
        nonflush.update(bigger)
        layer = bigger

    # Suited-rank masks of 5..7 bits -> best straight flush or flush among them.
    flush = [0] * 8192
    sf_masks = [(_bits(s), flush5[_bits(s)]) for s in reversed(_STRAIGHTS)]  # best first
    for m in range(8192):
        n = m.bit_count()
        if 5 <= n <= 7:
            for sm, v in sf_masks:
                if m & sm == sm:
                    flush[m] = v
                    break
            else:
                top = m
                for _ in range(n - 5):
                    top &= top - 1  # drop the lowest rank
                flush[m] = flush5[top]
    return nonflush, flush, info


_NONFLUSH, _FLUSH, _INFO = _build()
_CLASS = tuple(cls for cls, _ in _INFO)


def rank_hand(cards: Sequence[int]) -> int:
    """Strength of the best five-card hand within 5, 6 or 7 distinct cards (higher wins)."""
    n = len(cards)
    if n < 5 or n > 7:
        raise ValueError(f"rank_hand needs 5 to 7 cards, got {n}")
    s = _OFFSET
    v = _VALUE
    for c in cards:
        s += v[c]
    if len(set(cards)) != n:
        raise ValueError("duplicate card")
    if s & _FLUSH_BITS:
        f = s >> _SUIT_SHIFT
        suit = 0 if f & 0x8 else 1 if f & 0x80 else 2 if f & 0x800 else 3
        m = 0
        for c in cards:
            if c & 3 == suit:
                m |= 1 << (c >> 2)
        return _FLUSH[m]
    return _NONFLUSH[s & _RANK_MASK]


def hand_class(rank: int) -> HandClass:
    """Category of a value returned by ``rank_hand``."""
    if not MIN_RANK <= rank <= MAX_RANK:
        raise ValueError(f"not a hand rank: {rank!r}")
    return _CLASS[rank]


def is_royal(rank: int) -> bool:
    return rank == MAX_RANK


def describe(rank: int) -> str:
    """Human text, e.g. "Royal Flush", "Two Pair, Kings and Fives", "Pair of Jacks"."""
    cls = hand_class(rank)
    r = _INFO[rank][1]
    if cls is HandClass.STRAIGHT_FLUSH:
        return "Royal Flush" if rank == MAX_RANK else f"Straight Flush, {RANK_NAMES[r[0]]} High"
    if cls is HandClass.FOUR_OF_A_KIND:
        return f"Four of a Kind, {RANK_PLURALS[r[0]]}"
    if cls is HandClass.FULL_HOUSE:
        return f"Full House, {RANK_PLURALS[r[0]]} over {RANK_PLURALS[r[3]]}"
    if cls is HandClass.FLUSH:
        return f"Flush, {RANK_NAMES[r[0]]} High"
    if cls is HandClass.STRAIGHT:
        return f"Straight, {RANK_NAMES[r[0]]} High"
    if cls is HandClass.THREE_OF_A_KIND:
        return f"Three of a Kind, {RANK_PLURALS[r[0]]}"
    if cls is HandClass.TWO_PAIR:
        return f"Two Pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[2]]}"
    if cls is HandClass.PAIR:
        return f"Pair of {RANK_PLURALS[r[0]]}"
    return f"High Card, {RANK_NAMES[r[0]]}"


def best_five(cards: Sequence[int]) -> tuple[int, ...]:
    """The five cards that make ``rank_hand(cards)``, ordered for display.

    Display order: groups by size then rank (K K K 5 5), straights high to low with
    the wheel's ace last (5 4 3 2 A). Among equal-valued choices the first is taken,
    deterministically.
    """
    cards = tuple(cards)
    target = rank_hand(cards)
    best = cards if len(cards) == 5 else next(c for c in combinations(cards, 5) if rank_hand(c) == target)
    counts = [0] * 13
    for c in best:
        counts[c >> 2] += 1
    ordered = sorted(best, key=lambda c: (counts[c >> 2], c >> 2, c & 3), reverse=True)
    if _CLASS[target] in (HandClass.STRAIGHT, HandClass.STRAIGHT_FLUSH) and _INFO[target][1][0] == 3:
        ordered = ordered[1:] + ordered[:1]  # wheel: A 5 4 3 2 -> 5 4 3 2 A
    return tuple(ordered)
