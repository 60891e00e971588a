"""Hard (the Texas Hold'em rules): Monte Carlo equity against plausible opponent ranges (read from the chips
each opponent put in, public), value bets and raises sized within the legal bounds by that
equity, and bluffs at a controlled frequency (the share that makes a bet of that size break
even), semi-bluffs with draws; five-card draw picks the hold with the best simulated equity."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from felt_bots.equity import draw5_equity, holdem_equity
from felt_bots.situation import Action, Opponent, Situation
from felt_bots.strength import draws, keeps

TRIALS = 1500
DRAW_TRIALS = 500


def decide(view: dict[str, Any], rng: random.Random) -> Action:
    s = Situation.of(view)
    gen = np.random.default_rng(rng.getrandbits(64))
    ranges = [width(s, o) for o in contenders(s)]
    if s.draw5:
        if s.phase == "draw":
            keep = best_keep(s.hole, ranges, gen)
            return s.draw(tuple(c for c in s.hole if c not in keep))
        keep = best_keep(s.hole, ranges, gen) if s.preflop else s.hole
        equity = draw5_equity(s.hole, keep, ranges, TRIALS, gen)
    else:
        equity = holdem_equity(s.hole, s.board, ranges, TRIALS, gen)
    return act(s, equity, len(ranges), rng)


def contenders(s: Situation) -> list[Opponent]:
    """Opponents to beat. Before the flop, players who have not put in more than the forced
    bet and act after us will mostly fold: count at most two of them."""
    if not s.preflop:
        return list(s.opponents)
    active = [o for o in s.opponents if o.committed > s.unit or o.all_in]
    waiting = [o for o in s.opponents if o not in active]
    return active + waiting[: max(0, 2 - len(active))]


def width(s: Situation, o: Opponent) -> float:
    """The top share of holdings `o` plausibly has, from the chips it chose to put in: before
    the flop by everything it invested, after it by its bet on this street against the pot."""
    if s.preflop:
        invested = o.committed / max(s.unit, 1)
        return (
            1.0
            if invested <= 1.5
            else 0.45
            if invested <= 4
            else 0.25
            if invested <= 12
            else 0.12
            if invested <= 40
            else 0.06
        )
    if o.bet == 0:
        return 1.0
    before = max(s.pot - s.bet - sum(x.bet for x in s.opponents), 1)
    ratio = o.bet / before
    w = 0.4 if ratio < 0.4 else 0.32 if ratio < 0.8 else 0.25
    return w * 0.6 if s.bet > 0 else w  # it raised us


def best_keep(hand: tuple[int, ...], ranges: list[float], gen: np.random.Generator) -> tuple[int, ...]:
    options = keeps(hand)
    if len(options) == 1:
        return options[0]
    return max(options, key=lambda k: draw5_equity(hand, k, ranges, DRAW_TRIALS, gen))


def act(s: Situation, equity: float, opponents: int, rng: random.Random) -> Action:
    fair = 1.0 / (opponents + 1)
    value = fair + (
        0.08 if s.preflop else 0.18
    )  # a share worth building the pot with (callers are stronger than all holdings)
    if s.spr < 1.0 and equity > max(0.5, value):
        return s.raise_to(s.all_in_to)
    size = 0.5 if equity < 0.7 else 0.75 if equity < 0.85 else 1.0
    if not s.facing_bet:
        if equity > value:
            return s.pot_bet(size)
        if bluff(s, opponents, 0.6, rng):
            return s.pot_bet(0.6)
        return s.passive()
    if equity > value + 0.12 and s.can_raise:
        return s.pot_bet(size)
    if equity >= s.pot_odds + 0.02:
        return s.passive()
    if bluff(s, opponents, 0.75, rng) and s.can_raise:
        return s.pot_bet(0.75)
    return s.check_or_fold()


def bluff(s: Situation, opponents: int, size: float, rng: random.Random) -> bool:
    """Bluff at the break-even frequency of a bet of `size` pots (size / (1 + 2 size)), only
    heads-up or three-way, after the first round, more often with a draw behind it."""
    if opponents > 2 or s.preflop:
        return False
    frequency = size / (1 + 2 * size) / opponents
    if s.draw5 or len(s.board) < 5:
        frequency *= 1.5 if s.draw5 or draws(s.hole, s.board) >= 8 else 0.5
    return rng.random() < frequency
