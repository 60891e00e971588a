"""The two yardsticks of the match harness, as decision functions over the same view: a
random legal player and a calling station (always checks or calls, never draws)."""

from __future__ import annotations

import random
from typing import Any

from felt_bots.situation import Action, Situation


def random_legal(view: dict[str, Any], rng: random.Random) -> Action:
    """Any legal move, uniformly by kind, amounts uniform within the bounds (folds only when
    something is owed)."""
    s = Situation.of(view)
    if s.phase == "draw":
        return s.draw(tuple(rng.sample(s.hole, rng.randint(0, len(s.hole)))))
    moves: list[Action] = [s.passive()]
    if s.facing_bet:
        moves.append({"type": "fold"})
    bounds = s.legal.get("bet") or s.legal.get("raiseTo")
    if bounds:
        moves.append(s.raise_to(rng.randint(bounds["min"], bounds["max"])))
    if s.legal.get("allIn") is not None:
        moves.append({"type": "allIn"})
    return rng.choice(moves)


def calling_station(view: dict[str, Any], rng: random.Random) -> Action:  # never random
    s = Situation.of(view)
    return s.draw(()) if s.phase == "draw" else s.passive()


BASELINES = {"random": random_legal, "station": calling_station}
