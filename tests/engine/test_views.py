"""What each viewer may see."""

import json
import re

from felt_engine.actions import Action
from felt_engine.cards import card_str
from felt_engine.hand import apply, show
from felt_engine.testing import new_hand, play, stacked_deck
from felt_engine.views import public_view, seat_view, visible_operations

import pytest
from felt_engine.errors import IllegalAction


def dump(v) -> str:
    return json.dumps(v)


def cards_in(v) -> set[str]:
    """Every card string appearing as a JSON string value in ``v``."""
    return set(re.findall(r'"([2-9TJQKA][cdhs])"', dump(v)))


def card_strings(cards):
    return [card_str(c) for c in cards]


def test_seat_view_has_own_cards_but_not_others():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, seed=4)
    v = seat_view(st, 1)
    assert v["holeCards"] == card_strings(st.holes[1])
    assert [s["cards"] for s in v["seats"]] == [None, card_strings(st.holes[1]), None]
    for other in (0, 2):
        assert not cards_in(v) & set(card_strings(st.holes[other]))
    assert all(s["cards"] is None for s in public_view(st)["seats"])


def test_deck_order_and_burn_cards_are_never_in_a_view():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0, seed=8)
    st = play(st, "0 call", "1 check")
    secret = set(card_strings(st.burns)) | set(card_strings(st.deck.stub))
    for v in (public_view(st), seat_view(st, 0), seat_view(st, 1)):
        assert not cards_in(v) & secret
    for viewer in (None, 0, 1):
        assert not cards_in(visible_operations(st.operations, viewer)) & secret


def test_legal_actions_only_in_the_actors_view():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert seat_view(st, 0)["legalActions"]["raiseTo"] == {"min": 40, "max": 1000}
    assert seat_view(st, 1)["legalActions"] is None
    assert "legalActions" not in public_view(st)


def test_win_without_showdown_reveals_no_cards_and_no_unused_board():
    deck = stacked_deck({0: "AsAd", 1: "KsKd"}, 0, "2c 3c4c5c 2d 6c 2h 7c")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0, deck=deck)
    st = play(st, "0 call", "1 check", "1 bet 50", "0 fold")  # seat 1 (BB) acts first post-flop
    v = public_view(st)
    assert v["phase"] == "over" and v["showdown"] is False
    assert all(s["cards"] is None for s in v["seats"])
    assert v["board"] == ["3c", "4c", "5c"]
    seen = cards_in(v) | cards_in(visible_operations(st.operations))
    assert seen == {"3c", "4c", "5c"}


def test_showdown_reveals_every_live_hand_but_not_folded_ones():
    deck = stacked_deck({0: "AsAd", 1: "KsKd", 2: "7h2c"}, 0, "3h QhJh2d 4h 9s 5h 8s")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, deck=deck)
    st = play(st, "0 call", "1 call", "2 fold")
    for _ in range(3):
        st = play(st, "1 check", "0 check")
    v = seat_view(st, 0)
    assert v["seats"][0]["cards"] == ["As", "Ad"] and v["seats"][1]["cards"] == ["Ks", "Kd"]
    assert v["seats"][2]["cards"] is None
    assert "7h" not in cards_in(v) | cards_in(visible_operations(st.operations, 0))


def test_voluntary_show_after_the_hand():
    st = play(new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0, seed=2), "0 fold")
    with pytest.raises(IllegalAction):
        show(new_hand("nlhe-1", {0: 1000, 1: 1000}), 0)
    st, ops = show(st, 1)
    assert ops[0].kind == "show" and ops[0].detail == "voluntary"
    assert public_view(st)["seats"][1]["cards"] == card_strings(st.holes[1])
    assert public_view(st)["seats"][0]["cards"] is None
    with pytest.raises(IllegalAction) as e:
        show(st, 1)
    assert e.value.code == "cannot_show"


def test_draw_discards_and_new_cards_private():
    st = play(new_hand("draw5-1", {0: 500, 1: 500}, button=0, seed=3), "1 check", "0 check")
    old = st.holes[1]
    st, ops = apply(st, 1, Action.draw(old[:2]))
    pub = visible_operations(ops)
    assert pub[0]["cards"] == [] and pub[0]["discarded"] == [] and pub[0]["amount"] == 2
    mine = visible_operations(ops, 1)
    assert mine[0]["discarded"] == card_strings(old[:2])
    assert public_view(st)["seats"][1]["cardCount"] == 5


def test_seat_view_lists_the_preactions_available_now():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert seat_view(st, 2)["preactionsAvailable"] == ["call_any", "check_fold", "fold", "raise_any"]
    st = play(st, "0 raiseTo 60")
    assert seat_view(st, 2)["preactionsAvailable"] == ["call_any", "fold", "raise_any"]
    assert "preactionsAvailable" not in public_view(st)
    ante = new_hand("ante-nl-1", {0: 1000, 1: 1000})
    assert seat_view(ante, 1)["preactionsAvailable"] == []


def test_pots_merge_layers_the_same_hands_can_win_and_leave_bets_in_front_out():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st = play(st, "0 raiseTo 60", "1 call", "2 fold")  # the folded big blind's 20 is one more layer
    assert public_view(st)["pots"] == [{"amount": 140, "eligible": [0, 1]}]
    st = play(st, "1 bet 100")
    assert public_view(st)["pots"] == [{"amount": 140, "eligible": [0, 1]}]  # the 100 is still in front


def test_an_all_in_makes_a_side_pot_for_the_others():
    st = new_hand("nlhe-1", {0: 100, 1: 1000, 2: 1000}, button=0)
    st = play(st, "0 allIn", "1 call", "2 call", "1 bet 200", "2 call")
    assert public_view(st)["pots"] == [{"amount": 300, "eligible": [0, 1, 2]}, {"amount": 400, "eligible": [1, 2]}]


def test_a_big_blind_ante_is_shown_in_the_main_pot():
    st = new_hand("nlhe-1", {0: 15, 1: 1000, 2: 1000}, button=0, ante=20, ante_mode="big_blind")
    st = play(st, "0 allIn", "1 call", "2 check")
    assert public_view(st)["pots"] == [{"amount": 65, "eligible": [0, 1, 2]}, {"amount": 10, "eligible": [1, 2]}]


def test_a_revealed_hand_is_named_once_it_has_five_cards():
    deck = stacked_deck({0: "AsAd", 1: "KsKd", 2: "7h2c"}, 0, "3h QhJh2d 4h 9s 5h 8s")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, deck=deck)
    st = play(st, "0 call", "1 call", "2 fold")
    assert all(s["handName"] is None for s in seat_view(st, 0)["seats"])  # own cards are not "revealed"
    for _ in range(3):
        st = play(st, "1 check", "0 check")
    names = [s["handName"] for s in public_view(st)["seats"]]
    assert names == ["Pair of Aces", "Pair of Kings", None]
    assert public_view(st)["pots"] == []  # settled
