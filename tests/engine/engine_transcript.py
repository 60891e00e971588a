"""Seeded random hands as JSON: every step's operations and views, and what the engine says to
bad input along the way (tests/engine/test_compiled.py compares the compiled engine with its
sources through it).

Run: python -m tests.engine.engine_transcript HANDS SEED (HANDS per profile and forced-bet option)
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from felt_engine import betting
from felt_engine.actions import Action
from felt_engine.cards import Deck, cards_str, parse_card, parse_cards
from felt_engine.errors import EngineError
from felt_engine.hand import apply, start_hand
from felt_engine.preactions import set_preaction
from felt_engine.pots import PotError, settle
from felt_engine.profiles import TableStakes, get_profile
from felt_engine.state import HandState
from felt_engine.testing import random_action
from felt_engine.views import public_view, seat_view, visible_operations
from tests.engine.test_replay import FORCED

#: input a caller may send that the engine must refuse with its own error, compiled or not
BAD_ACTIONS = [
    Action("raiseTo", 40.0),
    Action("bet", True),
    Action("bet", "40"),
    Action("raiseTo", None),
    Action("fold", 1.5),
    Action("call", 0),
    Action("draw", 2.0),
    Action("draw", None, [99]),
    Action("draw", None, "As"),
    Action("jump"),
]
BAD_ADD_NOW: list[Any] = [("bet", 12.5), ("bet", "10"), ("bet", None), ("bet", -1), ("hit", None)]
PREACTIONS: list[Any] = [5, None, "fold", "check_fold", "call_any", "raise_any", "bogus"]


def outcome(call: Callable[[], Any]) -> Any:
    """What a call returned, or which error (type and code) it raised."""
    try:
        return call()
    except EngineError as exc:
        return ["error", type(exc).__name__, exc.code]
    except (PotError, ValueError, TypeError) as exc:
        return ["error", type(exc).__name__, str(exc)]


def _stakes(rv: str, overrides: dict[str, Any], n: int, rng: random.Random) -> TableStakes:
    p = get_profile(rv)
    base = {"ante": 10} if not p.blinds else {"small_blind": 10, "big_blind": 20}
    unit = base.get("big_blind", 10)
    buy_ins = (None, None) if p.money == "balance" else (unit, unit * (p.max_buy_in_units or 100))
    return TableStakes(
        base.get("small_blind", 0),
        base.get("big_blind", 0),
        overrides.get("ante", base.get("ante", 0)),
        *buy_ins,
        overrides.get("structure"),  # a str where the enum is declared, as callers send it
        overrides.get("ante_mode", "each"),
        overrides.get("straddle", 0) if n >= 3 else 0,
    )


def _step(st: HandState, rng: random.Random) -> tuple[HandState, dict[str, Any]]:
    seat = st.actor_seat
    assert seat is not None
    bad = rng.choice(BAD_ACTIONS)
    kind, add = rng.choice(BAD_ADD_NOW)
    other, preaction = rng.choice(st.info.seats), rng.choice(PREACTIONS)
    refused = [
        outcome(lambda: apply(st, seat, bad)),
        outcome(lambda: apply(st, seat + 1, Action("fold"))),
        outcome(lambda: betting.from_add_now(st, seat, kind, add)),
        outcome(lambda: seat_view(set_preaction(st, other, preaction), other)),
    ]
    action = random_action(st, rng)
    st, ops = apply(st, seat, action)
    return st, {
        "action": list(action),
        "refused": refused,
        "ops": visible_operations(ops),
        "public": public_view(st),
        "seats": [seat_view(st, s) for s in st.info.seats],
    }


def _started(*args: Any) -> Any:
    return public_view(start_hand(*args).state)


def hand(rv: str, overrides: dict[str, Any], rng: random.Random) -> list[Any]:
    p = get_profile(rv)
    n = rng.randint(p.min_seats, min(p.max_seats, 6))
    seats = sorted(rng.sample(range(10), n))
    stacks = {s: rng.choice([rng.randint(15, 80), rng.randint(200, 2000)]) for s in seats}
    if p.short_forced_bet == "exclude":
        stacks = {s: max(v, 10) for s, v in stacks.items()}
    stakes = _stakes(rv, overrides, n, rng)
    button = rng.choice(seats)
    order = Deck.from_seed(0).order  # a float stack; a deck as a list or a string of cards
    starts = [({**stacks, seats[0]: 1.5}, order), (stacks, list(order)), (stacks, cards_str(order))]
    out: list[Any] = [outcome(partial(_started, p, stakes, given, button, deck)) for given, deck in starts]
    st, ops = start_hand(p, stakes, stacks, button, Deck.shuffled(rng))
    out.append(visible_operations(ops))
    while not st.is_over:
        st, step = _step(st, rng)
        out.append(step)
    contributions = {s: rng.choice([0, 5, 5.0, True, 10]) for s in seats}
    out.append(outcome(lambda: settle(contributions, set(seats[:2]), {s: 1 for s in seats}, seats)))
    return out


def cards() -> list[Any]:
    """Decks and cards from loose values (a list for a tuple, a float or a bool for an int)."""
    deck = Deck.from_seed(0)
    calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (Deck, (list(deck.order),)),
        (Deck, (deck.order, 1.5)),
        (Deck, (deck.order, True)),
        (deck.deal, (1.0,)),
        (deck.deal, (True,)),
        (parse_cards, ([True],)),
        (parse_cards, ([51, "Kd", None],)),
        (parse_card, (5,)),
    ]
    return [outcome(partial(call, *args)) for call, args in calls]


def transcript(hands: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    return [cards(), *(hand(rv, overrides, rng) for rv, overrides in FORCED for _ in range(hands))]


def lines(hands: int, seed: int) -> list[str]:
    """One JSON line a hand."""
    return [json.dumps(h, default=repr, sort_keys=True) for h in transcript(hands, seed)]


if __name__ == "__main__":
    print("\n".join(lines(int(sys.argv[1]), int(sys.argv[2]))))
