"""Hand strength without simulation: starting-hand percentiles (Chen's formula), the made
hand now, its share against every possible holding on this board, draws, board texture, and
which cards to keep in five-card draw."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

import numpy as np

from felt_engine.batch import rank_hands
from felt_engine.evaluator import HandClass, hand_class, rank_hand

FULL = tuple(range(52))


def chen(a: int, b: int) -> float:
    """Bill Chen's starting-hand score of two hole cards (pairs, suits, gaps)."""
    ra, rb = sorted((a >> 2, b >> 2), reverse=True)
    points = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(ra, (ra + 2) / 2)
    if ra == rb:
        return max(5.0, points * 2)
    if a & 3 == b & 3:
        points += 2
    gap = ra - rb - 1
    points -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and ra < 10:
        points += 1
    return points


@cache
def _percentiles() -> dict[tuple[int, int], float]:
    scores = {(a, b): chen(a, b) for a, b in combinations(FULL, 2)}
    ordered = sorted(scores.values(), reverse=True)
    rank: dict[float, float] = {}
    for i, s in enumerate(ordered):
        rank.setdefault(s, (i + 1) / len(ordered))
    return {k: rank[s] for k, s in scores.items()}


def preflop_percentile(hole: tuple[int, ...]) -> float:
    """Top share of starting hands this one belongs to: 0.005 for aces, 1.0 for the worst."""
    a, b = sorted(hole[:2])
    return _percentiles()[(a, b)]


def top_fraction_table() -> dict[tuple[int, int], float]:
    """Every two-card holding (ascending card pair) -> its preflop percentile."""
    return _percentiles()


def made(cards: tuple[int, ...]) -> HandClass:
    return hand_class(rank_hand(cards))


def hand_strength(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """Share of all opponent holdings this hand beats now (ties count half), by enumeration."""
    mine = rank_hand(hole + board)
    rest = [c for c in FULL if c not in hole and c not in board]
    pairs = np.array(list(combinations(rest, 2)))
    theirs = rank_hands(
        np.hstack([pairs, np.broadcast_to(np.array(board, dtype=pairs.dtype), (len(pairs), len(board)))])
    )
    return float(((theirs < mine).sum() + (theirs == mine).sum() / 2) / len(pairs))


def draws(hole: tuple[int, ...], board: tuple[int, ...]) -> int:
    """Outs of the usual draws that use a hole card: flush draw 9, open-ended 8, gutshot 4."""
    cards = hole + board
    outs = 0
    suits = Counter(c & 3 for c in cards)
    for suit, n in suits.items():
        if n == 4 and any(c & 3 == suit for c in hole):
            outs += 9
    ranks = {c >> 2 for c in cards} | ({-1} if any(c >> 2 == 12 for c in cards) else set())
    mine = {c >> 2 for c in hole} | ({-1} if any(c >> 2 == 12 for c in hole) else set())
    best = 0
    for low in range(-1, 9):
        window = set(range(low, low + 5))
        have = window & ranks
        if len(have) == 4 and have & mine:
            missing = (window - have).pop()
            best = max(best, 8 if missing in (low, low + 4) and low + 4 < 12 else 4)
    return outs + best


def texture(board: tuple[int, ...]) -> float:
    """How wet the board is, 0 (dry) .. 1 (paired, suited, connected)."""
    if not board:
        return 0.0
    suits = Counter(c & 3 for c in board).most_common(1)[0][1]
    ranks = sorted({c >> 2 for c in board})
    connected = max((sum(1 for r in ranks if lo <= r < lo + 5) for lo in range(13)), default=0)
    paired = len(ranks) < len(board)
    return min(1.0, 0.25 * (suits - 1) + 0.2 * max(0, connected - 1) + 0.2 * paired)


def keeps(hand: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Sensible five-card-draw holds, best first by made value: stand pat with a straight or
    better, keep sets/pairs (and an ace kicker), four to a flush or straight, or high cards."""
    cls = made(hand)
    if cls >= HandClass.STRAIGHT:
        return [hand]
    by_rank = Counter(c >> 2 for c in hand)
    grouped = tuple(c for c in hand if by_rank[c >> 2] >= 2)
    options: list[tuple[int, ...]] = []
    if grouped:
        options.append(grouped)
        ace = [c for c in hand if c >> 2 == 12 and c not in grouped]
        if len(grouped) == 2 and ace:
            options.append(grouped + (ace[0],))
    suit, n = Counter(c & 3 for c in hand).most_common(1)[0]
    if n == 4:
        options.append(tuple(c for c in hand if c & 3 == suit))
    ranks = sorted(hand, key=lambda c: c >> 2)
    for four in combinations(ranks, 4):
        rs = [c >> 2 for c in four]
        if len(set(rs)) == 4 and (rs[-1] - rs[0] == 3 or rs == [0, 1, 2, 12]):
            options.append(four)
    high = sorted(hand, key=lambda c: c >> 2, reverse=True)
    options.append(tuple(high[:2]))
    options.append(tuple(high[:1]))
    seen: list[tuple[int, ...]] = []
    for o in options:
        if o not in seen:
            seen.append(o)
    return seen
