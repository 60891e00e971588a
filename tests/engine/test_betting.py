"""One named test per betting rule (see felt_engine.betting docstring)."""

import pytest

from felt_engine.actions import Action, Bounds
from felt_engine.betting import from_add_now
from felt_engine.errors import IllegalAction
from felt_engine.hand import apply, legal_actions
from felt_engine.operations import chips_committed
from felt_engine.testing import new_hand, play


def la(st, seat=None):
    return legal_actions(st, st.actor_seat if seat is None else seat)


def rejects(st, seat, action, code):
    with pytest.raises(IllegalAction) as e:
        apply(st, seat, action)
    assert e.value.code == code


# --- sizes ----------------------------------------------------------------------


def test_full_raise_must_be_at_least_last_full_raise_increment():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000, 3: 1000}, button=0)
    assert st.actor_seat == 3
    st = play(st, "3 raiseTo 60")  # increment 40
    assert la(st).raise_to == Bounds(100, 1000)
    rejects(st, 0, Action.raise_to(99), "amount_out_of_bounds")
    st = play(st, "0 raiseTo 100")
    assert la(st).raise_to.min == 140


def test_short_all_in_does_not_shrink_the_minimum_raise():
    st = new_hand("nlhe-1", {0: 1000, 1: 75, 2: 1000}, button=0)
    st = play(st, "0 raiseTo 60", "1 allIn")  # 75: +15, short
    assert la(st).raise_to.min == 75 + 40


def test_min_bet_is_big_blind_in_nlhe():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0)
    st = play(st, "0 call", "1 check")  # flop
    assert st.street_name == "flop"
    assert la(st).bet == Bounds(20, 980)
    rejects(st, 1, Action.bet(19), "amount_out_of_bounds")


def test_min_bet_is_10_in_ante_nl_1():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 200}, button=0)
    assert la(st).bet == Bounds(10, 190)
    rejects(st, st.actor_seat, Action.bet(9), "amount_out_of_bounds")


def test_min_raise_to_preflop_is_two_big_blinds():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert la(st).raise_to.min == 40
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, small_blind=25, big_blind=50)
    assert la(st).raise_to.min == 100


def test_cannot_bet_more_than_stack():
    st = new_hand("nlhe-1", {0: 300, 1: 1000}, button=0)
    rejects(st, 0, Action.raise_to(301), "amount_out_of_bounds")
    assert la(st).raise_to.max == 300


def test_integer_chips_only():
    st = new_hand("nlhe-1", {0: 300, 1: 1000}, button=0)
    rejects(st, 0, Action("raiseTo", 40.0), "invalid_amount")
    rejects(st, 0, Action("raiseTo", True), "invalid_amount")
    rejects(st, 0, Action("raiseTo", "40"), "invalid_amount")


def test_call_is_capped_by_the_stack():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 50}, button=0)
    st = play(st, "0 raiseTo 200", "1 fold")
    assert la(st).call == 30  # BB has 30 behind
    new, ops = apply(st, 2, Action.call())
    assert chips_committed(ops) == {2: 30}
    assert ops[0].all_in


# --- raise rights ------------------------------------------------------------------


def test_short_all_in_raise_does_not_reopen_betting_for_players_who_acted():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 70}, button=0)
    st = play(st, "0 raiseTo 60", "1 call", "2 allIn")  # BB to 70: +10 < 40
    legal = la(st)
    assert st.actor_seat == 0
    assert legal.call == 10 and legal.raise_to is None and legal.all_in is None
    rejects(st, 0, Action.raise_to(110), "cannot_raise")
    rejects(st, 0, Action.all_in(), "cannot_all_in")


def test_cumulative_short_all_ins_reopen_betting_once_a_full_raise_is_reached():
    stacks = {0: 80, 1: 100, 2: 1000, 3: 1000}
    st = new_hand("nlhe-1", stacks, button=0)
    st = play(st, "3 raiseTo 60", "0 allIn", "1 allIn", "2 call")  # 60 -> 80 -> 100
    assert st.actor_seat == 3
    assert la(st).raise_to == Bounds(140, 1000)  # faced +40 since acting: reopened


def test_single_short_all_in_below_full_increment_keeps_it_closed():
    stacks = {0: 80, 1: 1000, 2: 1000, 3: 1000}
    st = new_hand("nlhe-1", stacks, button=0)
    st = play(st, "3 raiseTo 60", "0 allIn", "1 fold", "2 call")  # only +20 since 3 acted
    assert st.actor_seat == 3 and la(st).raise_to is None and la(st).call == 20


def test_checker_facing_incomplete_opening_all_in_cannot_raise():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 25}, button=0)
    st = play(st, "0 call", "1 call", "2 check", "1 check", "2 allIn")  # flop: 5 < min bet
    assert st.street_name == "flop"
    assert la(st, 0).raise_to == Bounds(25, 980)  # seat 0 has not acted: may raise
    st = play(st, "0 call")
    assert st.actor_seat == 1
    legal = la(st)
    assert legal.call == 5 and legal.raise_to is None and legal.all_in is None


def test_further_full_raise_reopens_for_the_checker():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 25}, button=0)
    st = play(st, "0 call", "1 call", "2 check", "1 check", "2 allIn", "0 raiseTo 25")
    assert la(st, 1).raise_to is not None


def test_lone_player_may_call_but_not_raise_when_opponents_are_all_in():
    st = new_hand("nlhe-1", {0: 1000, 1: 100}, button=0)
    st = play(st, "0 call", "1 allIn")
    legal = la(st)
    assert legal.call == 80 and legal.raise_to is None and legal.all_in is None
    rejects(st, 0, Action.raise_to(300), "cannot_raise")


def test_board_runs_out_with_no_more_betting_when_nobody_can_act():
    st = new_hand("nlhe-1", {0: 1000, 1: 100}, button=0)
    st, ops = apply(play(st, "0 call", "1 allIn"), 0, Action.call())
    assert st.is_over and st.showdown and len(st.board) == 5
    kinds = [o.kind for o in ops]
    assert not {"check", "bet", "raise", "fold"} & set(kinds[1:])
    assert kinds.count("deal_board") == 3


def test_lone_funded_player_with_matched_bet_gets_no_decision():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 30}, button=0)
    st = play(st, "0 call", "1 call", "2 allIn")  # BB all-in to 30: 0 and 1 must call 10
    st = play(st, "0 call", "1 fold")
    assert st.is_over and len(st.board) == 5


def test_short_big_blind_does_not_reduce_nominal_call_while_two_funded_opponents_can_bet():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 5}, button=0)  # BB posts 5 all-in
    assert st.bets == (0, 10, 5)
    assert la(st).call == 20 and la(st).raise_to.min == 40
    st = play(st, "0 call")
    assert la(st).call == 10  # SB completes to the nominal 20


def test_short_big_blind_call_drops_when_only_one_funded_player_remains():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 5}, button=0)
    st, ops = apply(st, 0, Action.fold())
    # SB alone with chips, already above the all-in 5: no decision; board runs out
    assert st.is_over
    awards = {(o.seat, o.detail) for o in st.operations if o.kind == "award"}
    assert (1, "uncalled") in awards  # SB gets its unmatched 5 back


def test_heads_up_short_big_blind_means_no_nominal_call():
    st = new_hand("nlhe-1", {0: 1000, 1: 7}, button=0)  # button SB 10, BB 7 all-in
    assert st.is_over and st.showdown


# --- pot limit / fixed limit ----------------------------------------------------------


def test_pot_limit_max_raise_is_the_pot_after_the_call():
    st = new_hand("plhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert la(st).raise_to == Bounds(40, 70)  # 20 + (30 + 20)
    st = play(st, "0 raiseTo 70")
    assert la(st).raise_to == Bounds(120, 230)  # 70 + (100 + 60)
    rejects(st, 1, Action.raise_to(231), "amount_out_of_bounds")
    rejects(st, 1, Action.all_in(), "cannot_all_in")


def test_pot_limit_max_bet_is_the_pot():
    st = new_hand("plhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st = play(st, "0 call", "1 call", "2 check")
    assert la(st).bet == Bounds(20, 60)


def test_fixed_limit_small_bet_then_big_bet():
    st = new_hand("flhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    assert la(st).raise_to == Bounds(40, 40)
    st = play(st, "0 call", "1 call", "2 check")
    assert la(st).bet == Bounds(20, 20)  # flop: small bet
    st = play(st, "1 check", "2 check", "0 check")
    assert st.street_name == "turn" and la(st).bet == Bounds(40, 40)  # turn: big bet


def test_fixed_limit_cap_is_one_bet_and_three_raises():
    st = new_hand("flhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st = play(st, "0 raiseTo 40", "1 raiseTo 60", "2 raiseTo 80")  # BB + 3 raises
    assert la(st).raise_to is None and la(st).call == 40
    st = play(st, "0 call", "1 call")
    st = play(st, "1 bet 20", "2 raiseTo 40", "0 raiseTo 60", "1 raiseTo 80")
    assert la(st).raise_to is None


def test_fixed_limit_all_in_for_less_is_allowed():
    st = new_hand("flhe-1", {0: 30, 1: 1000, 2: 1000}, button=0)
    assert la(st).all_in == 30 and la(st).raise_to is None
    st = play(st, "0 allIn")
    assert la(st).raise_to == Bounds(50, 50)  # a raise is always one fixed bet above the bet to match


# --- errors ---------------------------------------------------------------------------


def test_illegal_action_has_code_and_changes_nothing():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    before = st
    rejects(st, 1, Action.call(), "not_your_turn")
    rejects(st, 0, Action.check(), "cannot_check")
    rejects(st, 0, Action.bet(40), "cannot_bet")
    rejects(st, 0, Action.raise_to(None), "amount_required")
    rejects(st, 0, Action("call", 20), "amount_not_allowed")
    rejects(st, 0, Action("shove"), "unknown_action")
    rejects(st, 9, Action.fold(), "not_in_hand")
    assert st == before and st.operations == before.operations
    done = play(st, "0 fold", "1 fold")
    rejects(done, 2, Action.check(), "hand_over")


def test_call_with_nothing_to_call_is_rejected():
    st = new_hand("ante-nl-1", {0: 200, 1: 200}, button=0)
    rejects(st, st.actor_seat, Action.call(), "cannot_call")


def test_preview_does_not_change_state_and_reports_escrow():
    from felt_engine.hand import preview

    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    ops = preview(st, 0, Action.raise_to(60))
    assert chips_committed(ops) == {0: 60}
    assert st.stacks == (1000, 990, 980)


# --- ante-nl-1 protocol ---------------------------------------------------------------


def test_hit_checks_when_free_and_calls_otherwise():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 200}, button=0)
    assert from_add_now(st, 1, "hit") == Action.check()
    st = play(st, "1 bet 30")
    assert from_add_now(st, 2, "hit") == Action.call()


def test_bet_is_chips_to_add_now():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 200}, button=0)
    st = play(st, "1 bet 30")
    assert from_add_now(st, 2, "bet", 30) == Action.call()
    assert from_add_now(st, 2, "bet", 60) == Action.raise_to(60)
    st = play(st, "2 call")
    st = apply(st, 0, from_add_now(st, 0, "bet", 190))[0]  # whole stack: all-in
    assert st.stacks[0] == 0
    with pytest.raises(IllegalAction) as e:
        from_add_now(st, 1, "bet", 500)
    assert e.value.code == "amount_out_of_bounds"
    with pytest.raises(IllegalAction) as e:
        from_add_now(st, 1, "bet", 5)
    assert e.value.code == "amount_out_of_bounds"


def test_ante_nl_1_legal_actions_give_bet_add_in_chips_to_add_now():
    # the case: a bet of 10, a raise to 30; the first bettor's add-now range
    st = new_hand("ante-nl-1", {0: 500, 1: 500, 2: 500}, button=0)
    assert legal_actions(st, 1).to_dict()["betAdd"] == {"min": 10, "max": 490}
    st = play(st, "1 bet 10", "2 raiseTo 30", "0 call")
    la = legal_actions(st, 1)
    assert la.raise_to == Bounds(50, 490) and la.bet_add == Bounds(40, 480)
    assert la.to_dict()["betAdd"] == {"min": 40, "max": 480}
    assert from_add_now(st, 1, "bet", 40) == Action.raise_to(50)
    assert from_add_now(st, 1, "bet", 480) == Action.all_in()
    assert apply(st, 1, from_add_now(st, 1, "bet", 40)).state.bets == (30, 50, 30)
    with pytest.raises(IllegalAction) as e:
        apply(st, 1, from_add_now(st, 1, "bet", 39))
    assert e.value.code == "amount_out_of_bounds"
    # no raise possible: betAdd is null (the key stays); other profiles have no betAdd
    st = new_hand("ante-nl-1", {0: 500, 1: 15}, button=0)
    st = play(st, "1 allIn")
    assert legal_actions(st, 0).to_dict()["betAdd"] is None
    assert "betAdd" not in legal_actions(new_hand("nlhe-1", {0: 500, 1: 500}), 0).to_dict()


def test_hit_call_is_capped_by_stack_in_ante_nl_1():
    st = new_hand("ante-nl-1", {0: 200, 1: 200, 2: 50}, button=0)
    st = play(st, "1 bet 100")
    new, ops = apply(st, 2, from_add_now(st, 2, "hit"))
    assert chips_committed(ops) == {2: 40} and new.stacks[2] == 0
