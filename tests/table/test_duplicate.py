"""A match table's dealer: the second hand of a pair deals each seat the other's hole cards of the
first, with the same board, the button on the other seat; stacks play no more than the depth."""

from __future__ import annotations

import random

from felt_engine import Action
from felt_engine.cards import Deck
from felt_engine.errors import IllegalAction
from felt_engine.hand import apply, start_hand
from felt_engine.profiles import get_profile
from felt_engine.testing import default_stakes
from felt_table.model.duplicate import Duplicate, mirrored

PROFILE = get_profile("nlhe-1")
STAKES = default_stakes("nlhe-1", small_blind=1, big_blind=2)


def board_of(deck: Deck, button: int, stacks: dict[int, int]) -> list[int]:
    """The five board cards the deck deals, the hand checked and called down to the end."""
    st = start_hand(PROFILE, STAKES, stacks, button, deck).state
    while st.phase != "over":
        seat = st.actor_seat
        assert seat is not None
        try:
            st, _ = apply(st, seat, Action("check"))
        except IllegalAction:  # facing a bet
            st, _ = apply(st, seat, Action("call"))
    return list(st.board)


def test_the_mirror_swaps_the_hole_cards_and_keeps_the_board() -> None:
    for n in range(200):
        deck = Deck.shuffled(random.Random(n))
        stacks = {3: 200, 7: 200}
        first = start_hand(PROFILE, STAKES, stacks, 3, deck).state
        mirror = mirrored(PROFILE, STAKES, stacks, deck, 3, 7)
        second = start_hand(PROFILE, STAKES, stacks, 7, mirror).state
        assert second.holes[0] == first.holes[1] and second.holes[1] == first.holes[0]
        assert board_of(mirror, 7, stacks) == board_of(deck, 3, stacks)


def test_pairs_alternate_and_stacks_play_the_depth() -> None:
    dealer = Duplicate(depth=200)
    assert dealer.playing({1: 350, 2: 120}) == {1: 200, 2: 120}
    assert dealer.after(1, 260) == 410 and dealer.after(2, 60) == 60
    fresh = Deck.shuffled(random.Random(1))
    assert dealer.deck(PROFILE, STAKES, {1: 200, 2: 120}, 1, fresh) is fresh  # a pair's first hand
    dealer.dealt(fresh, 1, (1, 2))
    other = Deck.shuffled(random.Random(2))
    assert dealer.deck(PROFILE, STAKES, {1: 200, 2: 120}, 2, other) == mirrored(
        PROFILE, STAKES, {1: 200, 2: 120}, fresh, 1, 2
    )
    dealer.dealt(other, 2, (1, 2))
    assert dealer.deck(PROFILE, STAKES, {1: 200, 2: 120}, 1, other) is other  # the next pair starts afresh
    dealer.dealt(other, 1, (1, 2))
    moved = Deck.shuffled(random.Random(3))  # the other player sat down again at seat 4
    assert dealer.deck(PROFILE, STAKES, {1: 200, 4: 200}, 4, moved) is moved
    dealer.dealt(moved, 4, (1, 4))
    assert dealer.deck(PROFILE, STAKES, {1: 200, 4: 200}, 1, fresh) == mirrored(
        PROFILE, STAKES, {1: 200, 4: 200}, moved, 4, 1
    )
