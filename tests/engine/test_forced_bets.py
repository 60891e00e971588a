"""Forced bets as data (felt_engine.forced): big-blind ante, button ante, straddle —
order, short stacks, heads-up, pots, validation and the PHH lists."""

from __future__ import annotations

import pytest

from felt_engine.actions import Action, Bounds
from felt_engine.errors import ConfigError
from felt_engine.forced import forced_bets
from felt_engine.hand import apply, legal_actions
from felt_engine.profiles import TableStakes, get_profile, validate_stakes
from felt_engine.testing import new_hand, play, stacked_deck


def posts(st):
    return [(o.kind, o.seat, o.amount, o.detail) for o in st.operations if o.kind.startswith("post")]


def hand(stacks, button, *, deck=None, **stakes):
    return new_hand("nlhe-1", stacks, button, deck=deck, **stakes)


def bb_ante(stacks, button, deck=None):
    return hand(stacks, button, deck=deck, ante=20, ante_mode="big_blind")


def test_big_blind_ante_is_posted_once_by_the_big_blind_after_its_blind():
    st = bb_ante({0: 1000, 1: 1000, 2: 1000, 3: 1000}, 0)
    assert posts(st) == [("post_blind", 1, 10, "sb"), ("post_blind", 2, 20, "bb"), ("post_ante", 2, 20, "bb_ante")]
    assert st.pot == 50 and st.bets == (0, 10, 20, 0)  # the ante is no bet: the call stays 20
    assert legal_actions(st, 3).call == 20 and legal_actions(st, 3).raise_to == Bounds(40, 1000)


def test_short_big_blind_covers_the_blind_before_the_table_ante():
    st = bb_ante({0: 1000, 1: 1000, 2: 25, 3: 1000}, 0)
    assert posts(st)[1:] == [("post_blind", 2, 20, "bb"), ("post_ante", 2, 5, "bb_ante")]
    assert st.stacks[2] == 0


def test_big_blind_ante_is_main_pot_money_for_every_live_hand():
    # UTG all-in for 15 wins the BB's whole ante, not only 15 of it (TDA: dead money)
    deck = stacked_deck({0: "AsAd", 1: "7c2d", 2: "8h3c"}, 0, "2s KcQdJh 4s 9c 5s 6d")
    st = bb_ante({0: 15, 1: 1000, 2: 1000}, 0, deck)
    st = play(st, "0 allIn", "1 fold")
    assert st.is_over and st.showdown
    assert st.payouts == (60, 0, 5)  # 15 + 15 (BB's blind) + 10 (SB) + 20 (ante); 5 uncalled


def test_big_blind_ante_returns_to_the_big_blind_when_everyone_folds():
    st = bb_ante({0: 1000, 1: 1000, 2: 1000}, 0)
    st = play(st, "0 fold", "1 fold")
    assert st.stacks == (1000, 990, 1010)


def test_big_blind_ante_heads_up_is_paid_by_the_big_blind_not_the_button():
    st = bb_ante({4: 500, 7: 500}, 7)
    assert posts(st) == [("post_blind", 7, 10, "sb"), ("post_blind", 4, 20, "bb"), ("post_ante", 4, 20, "bb_ante")]
    assert st.actor_seat == 7  # the button (small blind) acts first preflop


def test_button_ante_is_posted_by_the_button_and_heads_up_with_its_small_blind():
    st = hand({0: 1000, 1: 1000, 2: 1000}, 2, ante=15, ante_mode="button")
    assert posts(st)[-1] == ("post_ante", 2, 15, "button_ante") and st.pot == 45
    st = hand({0: 1000, 1: 1000}, 1, ante=15, ante_mode="button")
    assert posts(st) == [("post_blind", 1, 10, "sb"), ("post_blind", 0, 20, "bb"), ("post_ante", 1, 15, "button_ante")]


def test_straddle_is_posted_left_of_the_big_blind_acts_last_and_doubles_the_min_raise():
    st = hand({0: 1000, 1: 1000, 2: 1000, 3: 1000}, 0, straddle=40)
    assert posts(st) == [("post_blind", 1, 10, "sb"), ("post_blind", 2, 20, "bb"), ("post_blind", 3, 40, "straddle")]
    assert st.actor_seat == 0  # left of the straddler
    la = legal_actions(st, 0)
    assert la.call == 40 and la.raise_to == Bounds(80, 1000)
    st = play(st, "0 call", "1 call", "2 call")
    assert st.actor_seat == 3 and legal_actions(st, 3).check  # the straddle's option
    assert legal_actions(st, 3).raise_to == Bounds(80, 1000)
    st = play(st, "3 check")
    assert st.street_name == "flop" and st.pot == 160


def test_short_straddle_keeps_the_nominal_call():
    st = hand({0: 1000, 1: 1000, 2: 1000, 3: 30}, 0, straddle=40)
    assert posts(st)[-1] == ("post_blind", 3, 30, "straddle") and st.stacks[3] == 0
    assert legal_actions(st, 0).call == 40


def test_no_straddle_heads_up():
    st = hand({0: 1000, 1: 1000}, 0, straddle=40)
    assert [p[3] for p in posts(st)] == ["sb", "bb"]


def test_forced_bet_options_are_validated_against_the_profile():
    ok = TableStakes(10, 20, 20, 20, 2000, ante_mode="big_blind", straddle=40)
    validate_stakes(get_profile("nlhe-1"), ok)
    bad = [
        ("nlhe-1", TableStakes(10, 20, 0, 20, 2000, straddle=50)),  # not twice the BB
        ("flhe-1", TableStakes(10, 20, 0, 20, 2000, straddle=40)),  # no straddle in fixed limit
        ("nlhe-1", TableStakes(10, 20, 5, 20, 2000, ante_mode="everyone")),
        ("ante-nl-1", TableStakes(ante=10, ante_mode="big_blind")),  # ante-only: every player antes
        ("draw5-1", TableStakes(ante=10, min_buy_in=10, max_buy_in=500, ante_mode="button")),
    ]
    for rv, stakes in bad:
        with pytest.raises(ConfigError) as e:
            validate_stakes(get_profile(rv), stakes)
        assert e.value.code == "bad_stakes"


@pytest.mark.parametrize(
    "n,stakes,antes,blinds",
    [
        (4, TableStakes(10, 20, 5), [5, 5, 5, 5], [10, 20, 0, 0]),
        (4, TableStakes(10, 20, 20, ante_mode="big_blind"), [0, 20, 0, 0], [10, 20, 0, 0]),
        (4, TableStakes(10, 20, 20, ante_mode="button"), [0, 0, 0, 20], [10, 20, 0, 0]),
        (4, TableStakes(10, 20, 0, straddle=40), [0, 0, 0, 0], [10, 20, 40, 0]),
        (2, TableStakes(10, 20, 20, ante_mode="big_blind"), [0, 20], [10, 20]),  # PokerKit reads heads-up
        (2, TableStakes(10, 20, 20, ante_mode="button"), [20, 0], [10, 20]),  # lists crossed
    ],
)
def test_forced_bets_are_carried_into_phh(n, stakes, antes, blinds):
    assert forced_bets(get_profile("nlhe-1"), stakes, n) == (antes, blinds)


def test_big_blind_ante_hand_replays_in_pokerkit_to_the_same_stacks():
    pokerkit = pytest.importorskip("pokerkit")
    from felt_engine.phh import to_phh
    from felt_engine.phh_export import from_state

    deck = stacked_deck({0: "AsAd", 1: "7c2d", 2: "8h3c", 3: "9d9c"}, 0, "2s KcQdJh 4s 9h 5s 6d")
    st = bb_ante({0: 1000, 1: 1000, 2: 1000, 3: 300}, 0, deck)
    st = play(st, "3 raiseTo 60", "0 call", "1 fold", "2 call")
    while not st.is_over:
        st = apply(st, st.actor_seat, Action.check()).state
    *_, final = iter(pokerkit.HandHistory.loads(to_phh(from_state(st))))
    order = [1, 2, 3, 0]  # PHH order: left of the button first
    assert list(final.stacks) == [st.stacks[s] for s in order]
