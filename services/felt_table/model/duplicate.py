"""A benchmark match's dealer: duplicate deals at a live heads-up table.

The bots' offline harness plays each deck twice with the players swapped. At a table the players
keep their seats, so the second hand of a pair swaps the cards instead: the button moves to the
other seat as it does every hand heads-up, and the deck is rearranged so that each seat is dealt
the hole cards the other seat got in the first hand, with the same board. Each stack plays at most
the match's depth; chips above it stay behind (they are the seat's, untouched by the hand), so
both hands of a pair are played equally deep. The engine only ever receives the deck it deals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from felt_engine.cards import Deck
from felt_engine.hand import start_hand
from felt_engine.profiles import RulesProfile, TableStakes


def mirrored(
    profile: RulesProfile, stakes: TableStakes, stacks: dict[int, int], deck: Deck, first_button: int, button: int
) -> Deck:
    """The deck that deals each seat, with the button at `button`, the hole cards `deck` dealt
    the other seat with the button at `first_button`; every other card stays where it was."""
    first = start_hand(profile, stakes, stacks, first_button, deck).state
    probe = start_hand(profile, stakes, stacks, button, deck).state
    where = {card: i for i, card in enumerate(deck.order)}
    order = list(deck.order)
    a, b = range(len(probe.seats))
    for mine, theirs in ((a, b), (b, a)):
        for dealt, wanted in zip(probe.holes[mine], first.holes[theirs], strict=True):
            order[where[dealt]] = wanted
    if sorted(order) != sorted(deck.order):
        raise ValueError("the hole cards of the two hands are not dealt from the same places")
    return Deck(tuple(order))


@dataclass
class Duplicate:
    depth: int  # the chips each stack plays
    #: the pair's first deck, button and seats, until its mirror is dealt
    first: tuple[Deck, int, tuple[int, ...]] | None = None
    behind: dict[int, int] = field(default_factory=dict)  # seat -> chips kept out of the hand

    def playing(self, stacks: dict[int, int]) -> dict[int, int]:
        """The stacks the hand is dealt with (at most the depth); the rest stays behind."""
        self.behind = {seat: max(0, chips - self.depth) for seat, chips in stacks.items()}
        return {seat: min(chips, self.depth) for seat, chips in stacks.items()}

    def deck(
        self, profile: RulesProfile, stakes: TableStakes, stacks: dict[int, int], button: int, fresh: Deck
    ) -> Deck:
        """`fresh` for the first hand of a pair, the mirror of the first for the second. A pair whose
        first hand was dealt to other seats (a player left and sat down again) starts afresh."""
        if self.first is not None and (self.first[2] != tuple(sorted(stacks)) or self.first[1] == button):
            self.first = None
        if self.first is None or len(stacks) != 2:
            return fresh
        deck, first_button, _ = self.first
        return mirrored(profile, stakes, stacks, deck, first_button, button)

    def dealt(self, deck: Deck, button: int, seats: Iterable[int]) -> None:
        self.first = (deck, button, tuple(sorted(seats))) if self.first is None else None

    def after(self, seat: int, chips: int) -> int:
        """The seat's stack once the hand left it `chips`."""
        return chips + self.behind.get(seat, 0)
