"""Helpers for tests, bots and benchmarks: stacked decks and random legal play.

Not used by the engine itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from felt_engine.actions import Action
from felt_engine.betting import legal_actions_at
from felt_engine.cards import Deck, parse_cards
from felt_engine.dealing import complete_deck, hole_dealing_order
from felt_engine.hand import apply, start_hand
from felt_engine.profiles import Structure, TableStakes, get_profile
from felt_engine.state import HandState

__all__ = ["stacked_deck", "legal_action_list", "random_action", "default_stakes", "new_hand", "play"]


def default_stakes(
    rules_version: str,
    *,
    small_blind: int = 10,
    big_blind: int = 20,
    ante: int | None = None,
    structure: Structure | str | None = None,
    ante_mode: str = "each",
    straddle: int = 0,
) -> TableStakes:
    p = get_profile(rules_version)
    st = Structure(structure) if structure is not None else None
    if p.blinds:
        return TableStakes(small_blind, big_blind, ante or 0, big_blind, 10_000 * big_blind, st, ante_mode, straddle)
    a = ante if ante is not None else (p.fixed_ante or 10)
    if p.money == "balance":
        return TableStakes(0, 0, a, None, None, st)
    return TableStakes(0, 0, a, a, 50 * a, st)


def new_hand(
    rules_version: str,
    stacks: Mapping[int, int],
    button: int | None = None,
    *,
    deck: Deck | None = None,
    seed: int = 0,
    hand_id: str | None = None,
    reshuffle_seed: int | None = None,
    allowances: Mapping[int, int] | None = None,
    **stakes: Any,
) -> HandState:
    """A started hand with test stakes (blinds 10/20 or ante 10 by default)."""
    p = get_profile(rules_version)
    if button is None:
        button = min(stacks)
    state, _ = start_hand(
        p,
        default_stakes(rules_version, **stakes),
        stacks,
        button,
        deck if deck is not None else Deck.from_seed(seed),
        hand_id=hand_id,
        reshuffle_seed=reshuffle_seed,
        allowances=allowances,
    )
    return state


def play(st: HandState, *moves: str) -> HandState:
    """Apply moves like ``"3 raiseTo 60"``, ``"0 call"``, ``"1 draw As Kd"``; each must be
    made by the seat whose turn it is."""
    for m in moves:
        parts = m.split()
        seat, kind = int(parts[0]), parts[1]
        if kind == "draw":
            action = Action("draw", None, parse_cards(" ".join(parts[2:])))
        else:
            action = Action(kind, int(parts[2]) if len(parts) > 2 else None)
        st, _ = apply(st, seat, action)
    return st


def stacked_deck(holes: Mapping[int, str], button: int, then: str = "", *, seats: Iterable[int] | None = None) -> Deck:
    """A deck that deals ``holes`` (seat -> "AsKd", 2 or 5 cards) in real dealing order
    (one card per round, starting left of ``button``) followed by ``then`` (burns and
    board, or the draw stub, in order); the remaining cards follow in natural order.
    ``seats``: every seat dealt in (default: the keys of ``holes``)."""
    seats = sorted(seats if seats is not None else holes)
    b = seats.index(button)
    order = [seats[(b + 1 + k) % len(seats)] for k in range(len(seats))]
    cards = hole_dealing_order([parse_cards(holes[s]) for s in order])
    return complete_deck(cards + list(parse_cards(then)))


def legal_action_list(st: HandState, rng: random.Random | None = None) -> list[Action]:
    """Concrete legal actions for the current actor (amounts sampled from the bounds:
    min, max and, with ``rng``, one random value in between unless fixed limit)."""
    i = st.actor
    if i is None:
        return []
    la = legal_actions_at(st, i)
    if la.draw is not None:
        hand = st.holes[i]
        if rng is None:
            return [Action("draw"), Action("draw", None, hand[:1])]
        k = rng.randint(0, la.draw)
        return [Action("draw", None, tuple(rng.sample(hand, k)))]
    out = [Action("fold")]
    if la.check:
        out.append(Action("check"))
    if la.call is not None:
        out.append(Action("call"))
    for kind, b in (("bet", la.bet), ("raiseTo", la.raise_to)):
        if b is not None:
            amounts = {b.min, b.max}
            if rng is not None and st.structure is not Structure.FIXED_LIMIT:
                amounts.add(rng.randint(b.min, b.max))
            out.extend(Action(kind, a) for a in sorted(amounts))
    if la.all_in is not None:
        out.append(Action("allIn"))
    return out


def random_action(st: HandState, rng: random.Random) -> Action:
    """A random legal action, biased towards passive play so hands reach showdown."""
    acts = legal_action_list(st, rng)
    if acts and acts[0].kind == "fold" and len(acts) > 1 and rng.random() < 0.7:
        acts = acts[1:]
    return rng.choice(acts)
