"""Easy (the Texas Hold'em rules): mainly the immediate strength of its cards — the starting hand, then the
made hand now; no position, pot odds, draws or reads."""

from __future__ import annotations

import random
from typing import Any

from felt_bots.situation import Action, Situation
from felt_bots.strength import keeps, made, preflop_percentile
from felt_engine.evaluator import HandClass


def decide(view: dict[str, Any], rng: random.Random) -> Action:
    s = Situation.of(view)
    if s.phase == "draw":
        keep = keeps(s.hole)[0]
        return s.draw(tuple(c for c in s.hole if c not in keep))
    if s.draw5 or not s.preflop:
        cls = made(s.hole + s.board)
        if cls >= HandClass.TWO_PAIR:
            return s.pot_bet(0.6) if rng.random() < 0.8 else s.passive()
        if cls == HandClass.PAIR:
            return s.call_or_fold(s.to_call <= s.pot)
        return s.check_or_fold()
    top = preflop_percentile(s.hole)
    if top <= 0.08:
        return s.raise_to(3 * max(s.to_match, s.unit))
    return s.call_or_fold(top <= 0.5 and s.to_call <= 4 * s.unit)
