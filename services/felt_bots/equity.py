"""Monte Carlo equity against plausible opponent ranges, on the engine's batch evaluator.

An opponent's range is a width (the top share of holdings it would have played like this);
instead of rejecting deals outside the ranges, every deal is weighted (1 inside, `OUTSIDE`
outside, per opponent), so a few thousand deals give a steady estimate for six players.
Only public facts and the agent's own cards go in: the dead cards are the agent's hand and the
board.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from felt_bots.strength import top_fraction_table
from felt_engine.batch import rank_hands

#: weight of a deal whose opponent hand lies outside its range (not zero: ranges are guesses)
OUTSIDE = 0.05


@cache
def _percentile_matrix() -> np.ndarray:
    m = np.ones((52, 52))
    for (a, b), p in top_fraction_table().items():
        m[a, b] = m[b, a] = p
    return m


@cache
def _draw5_quantiles() -> np.ndarray:
    """Sorted ranks of random five-card hands (fixed seed): a hand's share of all hands."""
    rng = np.random.default_rng(5)
    return np.sort(rank_hands(np.argsort(rng.random((20000, 52)), axis=1)[:, :5]))


def _deal(rng: np.random.Generator, dead: tuple[int, ...], trials: int, need: int) -> np.ndarray:
    """`need` distinct unseen cards per deal, in random order: the `need` smallest of random
    keys (a partition, not a sort of the whole deck), then ordered by those keys."""
    deck = np.array([c for c in range(52) if c not in dead])
    keys = rng.random((trials, deck.size))
    chosen = (
        np.argpartition(keys, need - 1, axis=1)[:, :need]
        if need < deck.size
        else np.tile(np.arange(deck.size), (trials, 1))
    )
    order = np.take_along_axis(keys, chosen, axis=1).argsort(axis=1)
    return deck[np.take_along_axis(chosen, order, axis=1)]


def _share(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Pot share per deal: 1 alone on top, 1/k for a k-way tie, else 0."""
    best = theirs.max(axis=1)
    ties = (theirs == mine[:, None]).sum(axis=1)
    return np.where(mine > best, 1.0, np.where(mine == best, 1.0 / (1 + ties), 0.0))


def _weighted(share: np.ndarray, inside: np.ndarray) -> float:
    weights = np.where(inside, 1.0, OUTSIDE).prod(axis=1)
    return float((share * weights).sum() / weights.sum())


def _board_percentile(board: tuple[int, ...], dead: tuple[int, ...]) -> np.ndarray:
    """(52, 52) -> the top share of all holdings that a holding's made hand on `board` is in
    (the range of a player who bets now is the holdings strong now)."""
    rest = np.array([c for c in range(52) if c not in dead])
    pairs = np.array([(a, b) for i, a in enumerate(rest) for b in rest[i + 1 :]])
    ranks = rank_hands(np.hstack([pairs, np.broadcast_to(np.array(board), (len(pairs), len(board)))]))
    ordered = np.sort(ranks)
    top = 1.0 - np.searchsorted(ordered, ranks, side="right") / len(ordered) + 1.0 / len(ordered)
    m = np.ones((52, 52))
    m[pairs[:, 0], pairs[:, 1]] = top
    m[pairs[:, 1], pairs[:, 0]] = top
    return m


def holdem_equity(
    hole: tuple[int, ...], board: tuple[int, ...], ranges: list[float], trials: int, rng: np.random.Generator
) -> float:
    """Expected pot share of `hole` on `board` against one opponent per entry of `ranges`:
    before the flop a range is the top share of starting hands, after it the top share of
    holdings by the made hand on the board."""
    k = len(ranges)
    if k == 0:
        return 1.0
    missing = 5 - len(board)
    cards = _deal(rng, hole + board, trials, missing + 2 * k)
    boards = np.hstack([np.broadcast_to(np.array(board, dtype=cards.dtype), (trials, len(board))), cards[:, :missing]])
    holes = cards[:, missing:].reshape(trials, k, 2)
    mine = rank_hands(np.hstack([np.broadcast_to(np.array(hole, dtype=cards.dtype), (trials, 2)), boards]))
    theirs = rank_hands(
        np.concatenate([holes, np.repeat(boards[:, None, :], k, axis=1)], axis=2).reshape(trials * k, 7)
    )
    table = _board_percentile(board, hole + board) if len(board) >= 3 else _percentile_matrix()
    pct = table[holes[:, :, 0], holes[:, :, 1]]
    return _weighted(_share(mine, theirs.reshape(trials, k)), pct <= np.array(ranges))


def draw5_equity(
    hand: tuple[int, ...], keep: tuple[int, ...], ranges: list[float], trials: int, rng: np.random.Generator
) -> float:
    """Expected pot share after keeping `keep` of `hand` (the rest replaced from the unseen
    cards) against opponents whose final hands are in the given top shares."""
    k = len(ranges)
    if k == 0:
        return 1.0
    fill = 5 - len(keep)
    cards = _deal(rng, hand, trials, fill + 5 * k)
    mine = rank_hands(
        np.hstack([np.broadcast_to(np.array(keep, dtype=cards.dtype), (trials, len(keep))), cards[:, :fill]])
    )
    theirs = rank_hands(cards[:, fill:].reshape(trials * k, 5)).reshape(trials, k)
    quantiles = _draw5_quantiles()
    top = 1.0 - np.searchsorted(quantiles, theirs) / quantiles.size
    return _weighted(_share(mine, theirs), top <= np.array(ranges))
