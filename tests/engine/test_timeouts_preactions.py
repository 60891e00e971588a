"""Turn timeouts, leaving mid-hand and pre-actions."""

import pytest

from felt_engine.actions import Action
from felt_engine.errors import IllegalAction
from felt_engine.hand import leave, timeout
from felt_engine.operations import chips_committed
from felt_engine.preactions import auto_action, available_preactions, set_preaction, step_auto
from felt_engine.testing import new_hand, play


def code_of(fn, *args):
    with pytest.raises(IllegalAction) as e:
        fn(*args)
    return e.value.code


# --- timeouts ------------------------------------------------------------------------


def test_timeout_checks_when_free():
    st = play(new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0), "0 call", "1 call")
    st, ops = timeout(st, 2, st.turn_id)  # BB option
    assert [o.kind for o in ops][0] == "check" and ops[0].detail == "timeout"
    assert chips_committed(ops) == {}


def test_timeout_folds_when_facing_a_bet_and_never_commits_chips():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    new, ops = timeout(st, 0, st.turn_id)
    assert ops[0].kind == "fold" and chips_committed(ops) == {}
    assert new.stacks[0] == 1000


def test_stale_timeout_is_rejected_and_cannot_act_on_a_later_turn():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0)
    old_turn = st.turn_id
    st = play(st, "0 call")  # seat 1's turn now
    assert code_of(timeout, st, 0, old_turn) == "stale_turn"
    assert code_of(timeout, st, 1, old_turn) == "stale_turn"
    st = play(st, "1 check", "1 check")  # flop: seat 0 again, a new turn
    assert st.actor_seat == 0
    assert code_of(timeout, st, 0, old_turn) == "stale_turn"
    timeout(st, 0, st.turn_id)


def test_timeout_after_hand_over_is_rejected():
    st = play(new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0), "0 fold")
    assert code_of(timeout, st, 0, st.turn_id) == "hand_over"


def test_timeout_in_draw_stands_pat():
    st = play(new_hand("draw5-1", {0: 500, 1: 500}, button=0), "1 check", "0 check")
    before = st.holes[1]
    st, ops = timeout(st, 1, st.turn_id)
    assert ops[0].kind == "draw" and ops[0].amount == 0 and st.holes[1] == before


# --- leaving ----------------------------------------------------------------------------


def test_ante_nl_1_leaving_folds_immediately_even_out_of_turn_and_keeps_committed_chips():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 200, 3: 200}, button=0)
    st = play(st, "1 bet 50", "2 call")
    assert st.actor_seat == 3
    turn = st.turn_id
    st, ops = leave(st, 2)
    assert ops[0].kind == "fold" and ops[0].detail == "leave"
    assert st.contrib[2] == 60 and st.stacks[2] == 140  # committed chips stay in
    assert st.actor_seat == 3 and st.turn_id == turn  # actor's turn (and timer) unchanged
    assert code_of(leave, st, 2) == "already_folded"


def test_ante_nl_1_leaving_can_end_the_hand():
    st = new_hand("ante-nl-1", {0: 200, 1: 200}, button=0)
    st, _ = leave(st, 0)  # not their turn
    assert st.is_over and st.payouts == (0, 20)


def test_ante_nl_1_out_of_turn_leave_can_close_the_round():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 200}, button=0)
    st = play(st, "1 check", "2 check")
    st, _ = leave(st, 1)
    assert st.actor_seat == 0 and st.street_name == "preflop"
    st = play(st, "0 check")
    assert st.street_name == "flop" and st.actor_seat == 2


def test_nlhe_leave_queues_check_fold_on_own_turns():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st, ops = leave(st, 2)  # the BB, not its turn: queued
    assert ops == () and st.leaving[2] and not st.folded[2]
    st = play(st, "0 call", "1 call")
    auto = auto_action(st)
    assert auto.seat == 2 and auto.action == Action.check() and auto.reason == "leave"
    st, ops = step_auto(st)
    assert ops[0].kind == "check" and ops[0].detail == "leave"
    st = play(st, "1 bet 20")
    assert auto_action(st).action == Action.fold()


def test_nlhe_leave_on_own_turn_applies_at_once():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st, ops = leave(st, 0)
    assert ops[0].kind == "fold" and st.folded[0]


def test_all_in_player_who_leaves_keeps_pot_eligibility_under_queue_policy():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 100}, button=0)
    st = play(st, "0 call", "1 call", "2 allIn")
    st, _ = leave(st, 2)
    assert not st.folded[2]


# --- pre-actions --------------------------------------------------------------------------


def test_check_fold_preaction_checks_when_free_and_folds_to_a_bet():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st = set_preaction(st, 2, "check_fold")
    st = play(st, "0 call", "1 call")
    st, ops = step_auto(st)
    assert ops[0].kind == "check" and ops[0].detail == "preaction"
    st = play(st, "1 bet 40")
    st, ops = step_auto(st)
    assert ops[0].kind == "fold"


def test_check_fold_can_be_set_only_while_nobody_has_bet_this_round():
    # the five-card draw rules: the checkbox is available on every round until someone raises the bet
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert "check_fold" in available_preactions(st, 2)  # blinds alone are no raise
    st = play(st, "0 raiseTo 60")
    assert code_of(set_preaction, st, 2, "check_fold") == "invalid_preaction"
    assert available_preactions(st, 2) == ("call_any", "fold", "raise_any")
    st = set_preaction(st, 2, "fold")  # the others stay available
    st = play(st, "1 call", "2 call")
    assert st.street_name == "flop" and "check_fold" in available_preactions(st, 0)
    st = set_preaction(st, 0, "check_fold")  # set before the bet: stays and folds to it
    st = play(st, "1 bet 20", "2 call")
    assert auto_action(st).action == Action.fold()


def test_check_fold_can_be_set_again_in_the_draw_after_a_first_round_bet():
    st = new_hand("draw5-1", {0: 500, 1: 500}, button=0, structure="fixed-limit")
    st = play(st, "1 bet 10")
    assert code_of(set_preaction, st, 0, "check_fold") == "invalid_preaction"
    st = play(st, "0 call")
    assert st.phase == "draw"
    assert set_preaction(st, 0, "check_fold").preactions == ("check_fold", None)


def test_fold_preaction_folds_on_turn():
    st = set_preaction(new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0), 1, "fold")
    st = play(st, "0 call")
    assert auto_action(st).action == Action.fold()


def test_call_any_checks_when_nothing_to_call_and_calls_any_bet():
    st = set_preaction(new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0), 2, "call_any")
    st = play(st, "0 raiseTo 300", "1 call")
    st, ops = step_auto(st)
    assert ops[0].kind == "call" and chips_committed(ops) == {2: 280}
    st = play(st, "1 check")
    assert auto_action(st).action == Action.check()


def test_raise_any_makes_the_minimum_raise_whenever_possible():
    st = set_preaction(new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0), 1, "raise_any")
    st = play(st, "0 call")
    assert auto_action(st).action == Action.raise_to(40)
    st = play(st, "1 raiseTo 40", "2 call", "0 call")
    assert auto_action(st).action == Action.bet(20)


def test_raise_any_calls_when_no_raise_is_possible():
    st = new_hand("nlhe-1", {0: 1000, 1: 100}, button=0)
    st = set_preaction(st, 0, "raise_any")
    st = play(st, "0 call", "1 allIn")
    assert auto_action(st).action == Action.call()


def test_preactions_dropped_when_all_in_and_cleared_at_hand_end():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st = set_preaction(st, 1, "call_any")
    st = play(st, "0 allIn")
    st, _ = step_auto(st)  # 1 calls all-in -> dropped
    assert st.preactions[1] is None
    st = set_preaction(st, 2, "fold")
    st, _ = step_auto(st)
    assert st.is_over and st.preactions == (None, None, None)
    assert code_of(set_preaction, st, 0, "fold") == "hand_over"


def test_invalid_preaction_is_rejected():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert code_of(set_preaction, st, 1, "shove") == "invalid_preaction"
    assert auto_action(st) is None
