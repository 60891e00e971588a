"""Decks built from given cards, in the engine's dealing order.

Why: a hand history (PHH) names the cards each player got and the board, not a deck.
To replay it the engine needs a deck that deals exactly those cards, and that order is
the engine's business (one hole card at a time starting left of the button, a burn
before each board street where the profile burns, draw replacements in drawing order).
Callers describe *what* was dealt; :func:`deck_for_hand` owns *when*. A card the
history does not know (``None``, PHH ``??``) and every burn get a card nobody named.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from felt_engine.cards import FULL_DECK, Deck
from felt_engine.profiles import RulesProfile

__all__ = ["deck_for_hand", "hole_dealing_order", "complete_deck"]

Card = int | None


def hole_dealing_order(holes: Sequence[Sequence[Card]]) -> list[Card]:
    """Hole cards in the order the engine deals them: ``holes[k]`` is the hand of the
    k-th player left of the button; one card per player per round."""
    sizes = {len(h) for h in holes}
    if len(sizes) > 1:
        raise ValueError("every hand needs the same number of cards")
    rounds = sizes.pop() if sizes else 0
    return [holes[k][r] for r in range(rounds) for k in range(len(holes))]


def complete_deck(cards: Iterable[Card]) -> Deck:
    """A 52-card deck dealing ``cards`` first; each ``None`` and the rest of the deck
    take the cards not named, in natural order. Raises ValueError on a duplicate."""
    cards = list(cards)
    named = [c for c in cards if c is not None]
    if len(set(named)) != len(named):
        raise ValueError("duplicate card")
    if len(cards) > 52:
        raise ValueError("more than 52 cards")
    unused = iter(c for c in FULL_DECK if c not in set(named))
    order = [next(unused) if c is None else c for c in cards]
    order.extend(unused)
    return Deck(tuple(order))


def deck_for_hand(
    profile: RulesProfile,
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    draws: Sequence[Card] = (),
) -> Deck:
    """The deck that deals these cards under ``profile``.

    ``holes[k]``: the first-street hand of the k-th player left of the button (the
    button last); ``board``: the board cards in dealing order (may stop early);
    ``draws``: the draw replacements in the order they were drawn (five-card draw).
    """
    board_left, draws_left = list(board), list(draws)
    cards: list[Card] = hole_dealing_order(holes)
    for spec in profile.streets[1:]:
        if spec.burn:
            cards.append(None)
        for _ in range(spec.board_cards):
            cards.append(board_left.pop(0) if board_left else None)
        if spec.draw:
            cards.extend(draws_left)
            draws_left = []
    if board_left or draws_left:
        raise ValueError(f"{profile.rules_version} deals fewer cards than given")
    return complete_deck(cards)
