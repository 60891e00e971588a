"""Normal (the Texas Hold'em rules): position, stack depth, pot odds, board texture and simplified starting
ranges — exact hand strength against every holding on the board, no simulation."""

from __future__ import annotations

import random
from typing import Any

from felt_bots.situation import Action, Situation
from felt_bots.strength import draws, hand_strength, keeps, made, preflop_percentile, texture
from felt_engine.evaluator import HandClass

#: opening range (top share of hands) by how many players act after us
OPEN = (0.45, 0.35, 0.26, 0.2, 0.16, 0.13)


def decide(view: dict[str, Any], rng: random.Random) -> Action:
    s = Situation.of(view)
    if s.phase == "draw":
        return s.draw(tuple(c for c in s.hole if c not in choose_keep(s.hole)))
    if s.draw5:
        return _draw5_bet(s, rng)
    if s.preflop:
        return _preflop(s)
    return _postflop(s, rng)


def choose_keep(hand: tuple[int, ...]) -> tuple[int, ...]:
    """The first sensible hold, except that a small pair gives way to four to a flush."""
    options = keeps(hand)
    first = options[0]
    flush = next((o for o in options if len(o) == 4 and len({c & 3 for c in o}) == 1), None)
    if flush and len(first) == 2 and first[0] >> 2 < 9:
        return flush
    return first


def _preflop(s: Situation) -> Action:
    top = preflop_percentile(s.hole)
    width = OPEN[min(s.seats_after, len(OPEN) - 1)]
    if s.stack <= 12 * s.unit:  # short: push or fold
        return s.raise_to(s.all_in_to) if top <= 0.22 else s.check_or_fold()
    raised = s.to_call > s.unit
    if not raised:
        if top <= width:
            return s.raise_to(s.to_match + 2 * s.unit + s.unit * len(s.opponents) // 3)
        return s.passive() if s.legal.get("check") or (top <= width * 1.6 and s.to_call <= s.unit) else {"type": "fold"}
    if top <= width * 0.2:
        return s.raise_to(3 * s.to_match)
    return s.call_or_fold(top <= width * 0.55 and s.pot_odds < 0.4)


def _postflop(s: Situation, rng: random.Random) -> Action:
    hs = hand_strength(s.hole, s.board) ** max(1, len(s.opponents))
    outs = draws(s.hole, s.board) if len(s.board) < 5 else 0
    draw_eq = min(0.45, outs * (0.04 if len(s.board) == 3 else 0.02))
    size = 0.5 + 0.3 * texture(s.board)
    if s.spr < 1.5 and hs > 0.6:
        return s.raise_to(s.all_in_to)
    if not s.facing_bet:
        if hs > 0.65 or (draw_eq > 0.25 and s.in_position and rng.random() < 0.5):
            return s.pot_bet(size)
        return s.passive()
    if hs > 0.85:
        return s.pot_bet(size + 0.25)
    return s.call_or_fold(max(hs, draw_eq) > s.pot_odds + 0.08)


def _draw5_bet(s: Situation, rng: random.Random) -> Action:
    cls = made(s.hole)
    if cls >= (HandClass.TWO_PAIR if s.preflop else HandClass.THREE_OF_A_KIND):
        return s.pot_bet(0.75)
    if cls >= HandClass.PAIR:
        if not s.facing_bet and s.in_position and rng.random() < 0.4:
            return s.pot_bet(0.5)
        return s.call_or_fold(s.pot_odds < 0.35)
    drawing = s.preflop and any(len(k) == 4 for k in keeps(s.hole))
    return s.call_or_fold(drawing and s.pot_odds < 0.25)
