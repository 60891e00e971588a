"""A seat's allowance (the chips its wager caps let it commit in the hand) bounds its legal
actions the way a stack does, without making it all-in (felt_engine.hand.start_hand)."""

import pytest

from felt_engine.actions import Action, Bounds
from felt_engine.errors import ConfigError, IllegalAction
from felt_engine.hand import apply, legal_actions
from felt_engine.testing import new_hand, play


def refused(st, action):
    with pytest.raises(IllegalAction) as e:
        apply(st, st.actor_seat, action)
    return e.value.code


def test_an_allowance_below_the_stack_caps_bets_and_raises_and_takes_the_all_in_away():
    # blinds 10/20; seat 0 (button, first to act 3-handed) may commit 50 in the whole hand
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, allowances={0: 50})
    assert st.actor_seat == 0
    legal = legal_actions(st, 0)
    assert legal.call == 20
    assert legal.raise_to == Bounds(40, 50)
    assert legal.all_in is None and legal.all_in_to is None
    assert refused(st, Action.raise_to(51)) == "over_allowance"
    assert refused(st, Action.all_in()) == "over_allowance"
    assert refused(st, Action.raise_to(30)) == "amount_out_of_bounds"  # a poker rule, not the cap
    st = play(st, "0 raiseTo 50", "1 raiseTo 200")
    legal = legal_actions(st, st.actor_seat)  # seat 2, unbounded
    assert legal.all_in == 1000 - 20
    st = play(st, "2 fold")
    legal = legal_actions(st, 0)  # 150 to call, nothing left of the allowance
    assert legal.call is None and legal.raise_to is None and legal.fold
    assert refused(st, Action.call()) == "over_allowance"
    st = play(st, "0 fold")
    assert st.is_over


def test_the_allowance_counts_the_forced_bets_and_the_whole_hand():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0, allowances={1: 60})  # seat 1 posts the BB (20)
    st = play(st, "0 call")
    assert legal_actions(st, 1).raise_to == Bounds(40, 60)
    st = play(st, "1 check")
    assert legal_actions(st, 1).bet == Bounds(20, 40)  # 40 left after the 20 in
    st = play(st, "1 bet 40", "0 raiseTo 200")
    assert legal_actions(st, 1).call is None
    assert refused(st, Action.call()) == "over_allowance"


def test_an_allowance_at_or_above_the_stack_changes_nothing():
    plain = new_hand("nlhe-1", {0: 300, 1: 300}, button=0)
    st = new_hand("nlhe-1", {0: 300, 1: 300}, button=0, allowances={0: 300, 1: 5000})
    assert st.info.allowances is None
    assert legal_actions(st, 0) == legal_actions(plain, 0)


def test_add_now_bets_are_bounded_too():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 200}, button=0, allowances={1: 40})  # ante 10 paid
    assert st.actor_seat == 1
    legal = legal_actions(st, 1)
    assert legal.bet == Bounds(10, 30) and legal.bet_add == Bounds(10, 30)
    assert legal.all_in is None


def test_a_bad_allowance_is_refused():
    with pytest.raises(ConfigError) as e:
        new_hand("nlhe-1", {0: 300, 1: 300}, button=0, allowances={0: -1})
    assert e.value.code == "bad_allowance"
