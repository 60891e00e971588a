"""Turn order, forced bets, streets, endings and settlement of a whole hand."""

import pytest

from felt_engine.actions import Action
from felt_engine.cards import Deck, parse_cards
from felt_engine.errors import ConfigError
from felt_engine.hand import apply, legal_actions, start_hand
from felt_engine.operations import chips_committed
from felt_engine.profiles import get_profile
from felt_engine.testing import default_stakes, new_hand, play, stacked_deck


def kinds(ops):
    return [o.kind for o in ops]


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after():
    st = new_hand("nlhe-1", {3: 1000, 7: 1000}, button=7)
    assert st.seats[st.sb] == 7 and st.seats[st.bb] == 3
    assert st.bets == (20, 10)
    assert st.actor_seat == 7
    st = play(st, "7 call", "3 check")
    assert st.street_name == "flop" and st.actor_seat == 3
    st = play(st, "3 check")
    assert st.actor_seat == 7


def test_preflop_starts_left_of_big_blind_and_later_streets_left_of_button():
    st = new_hand("nlhe-1", {0: 1000, 2: 1000, 5: 1000, 8: 1000}, button=2)
    assert (st.seats[st.sb], st.seats[st.bb]) == (5, 8)
    assert st.actor_seat == 0
    st = play(st, "0 call", "2 call", "5 call", "8 check")
    assert st.street_name == "flop" and st.actor_seat == 5


def test_later_streets_start_left_of_button_among_active_players():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000, 3: 1000}, button=0)
    st = play(st, "3 call", "0 call", "1 fold", "2 check")  # SB folded
    assert st.actor_seat == 2
    # an all-in player is skipped too
    st = new_hand("nlhe-1", {0: 1000, 1: 40, 2: 1000}, button=0)
    st = play(st, "0 call", "1 allIn", "2 call", "0 call")
    assert st.street_name == "flop" and st.actor_seat == 2


def test_ante_nl_1_first_solvent_player_left_of_dealer_acts_on_every_street():
    st = new_hand("ante-nl-1", {0: 200, 1: 30, 2: 200, 3: 200}, button=0)
    assert st.actor_seat == 1
    st = play(st, "1 allIn", "2 call", "3 call", "0 call")  # seat 1 is all-in now
    assert st.street_name == "flop" and st.actor_seat == 2
    st = play(st, "2 check", "3 check", "0 check")
    assert st.street_name == "turn" and st.actor_seat == 2


def test_ante_nl_1_has_no_blinds_no_burns_and_an_ante_of_10():
    st, ops = start_hand(
        get_profile("ante-nl-1"), default_stakes("ante-nl-1"), {0: 200, 1: 200, 2: 200}, 0, Deck.from_seed(3)
    )
    assert chips_committed(ops) == {0: 10, 1: 10, 2: 10}
    assert "post_blind" not in kinds(ops)
    st = play(st, "1 check", "2 check", "0 check")
    assert st.burns == () and len(st.board) == 3


def test_nlhe_burns_one_card_before_each_street():
    deck = stacked_deck({0: "AsAh", 1: "KsKh"}, 0, "2c 3c4c5c 2d 6c 2h 7c")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0, deck=deck)
    st = play(st, "0 call", "1 check", "1 check", "0 check", "1 check", "0 check")
    assert st.board == parse_cards("3c4c5c6c7c")
    assert st.burns == parse_cards("2c2d2h")


def test_antes_and_blinds_on_one_table():
    st, ops = start_hand(
        get_profile("nlhe-1"), default_stakes("nlhe-1", ante=5), {0: 1000, 1: 1000, 2: 1000}, 0, Deck.from_seed(1)
    )
    assert chips_committed(ops) == {0: 5, 1: 15, 2: 25}
    assert st.bets == (0, 10, 20) and st.pot == 45
    assert apply(st, 0, Action.call()).ops[0].amount == 20  # ante is dead money
    from felt_engine.hand import legal_actions

    assert legal_actions(st, 0).raise_to.min == 40  # 2xBB


def test_player_who_cannot_cover_the_blind_posts_all_in():
    st = new_hand("nlhe-1", {0: 1000, 1: 6, 2: 1000}, button=0)
    assert st.stacks[1] == 0 and st.bets[1] == 6
    assert st.actor_seat == 0


def test_ante_nl_1_players_below_the_ante_cannot_be_dealt_in():
    with pytest.raises(ConfigError) as e:
        start_hand(get_profile("ante-nl-1"), default_stakes("ante-nl-1"), {0: 200, 1: 9}, 0, Deck.from_seed(1))
    assert e.value.code == "short_stack"


def test_seat_count_and_button_are_validated():
    with pytest.raises(ConfigError):
        new_hand("nlhe-1", {0: 100})
    with pytest.raises(ConfigError):
        new_hand("nlhe-1", {i: 100 for i in range(10)})
    new_hand("ante-nl-1", {i: 100 for i in range(10)})
    with pytest.raises(ConfigError):
        new_hand("nlhe-1", {0: 100, 1: 100}, button=5)


def test_hand_records_its_rules_version():
    st = new_hand("plhe-1", {0: 100, 1: 100})
    assert st.rules_version == "plhe-1"
    assert st.operations[0].kind == "hand_start" and st.operations[0].detail == "plhe-1"


def test_all_but_one_fold_ends_hand_without_showdown_or_more_board():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    st = play(st, "0 call", "1 call", "2 check")  # flop dealt
    st, ops = apply(play(st, "1 bet 50", "2 fold"), 0, Action.fold())
    assert st.is_over and not st.showdown
    assert len(st.board) == 3 and len(st.burns) == 1
    assert "show" not in kinds(st.operations)
    assert st.shown == (None, None, None)
    assert st.stacks == (980, 1040, 980)
    awards = [(o.seat, o.amount, o.detail) for o in ops if o.kind == "award"]
    assert (1, 50, "uncalled") in awards


def test_showdown_reveals_every_live_hand_and_best_five_of_seven_wins():
    deck = stacked_deck({0: "AsAd", 1: "KsKd", 2: "7c2d"}, 0, "3h QhJh2c 4h 9s 5h 8s")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, deck=deck)
    st = play(st, "0 call", "1 call", "2 fold")
    for _ in range(3):
        st = play(st, "1 check", "0 check")
    assert st.is_over and st.showdown
    assert st.board == parse_cards("QhJh2c9s8s")
    assert st.shown[0] and st.shown[1] and st.shown[2] is None
    assert st.stacks == (1040, 980, 980)


def test_tied_hands_split_the_pot_odd_chip_left_of_button():
    # both play the board straight; seat 1 folded 10 (SB): pot 50 -> 25/25
    deck = stacked_deck({0: "2c3d", 1: "4c4d", 2: "2h3h"}, 0, "7s TsJsQd 2s Kh 3s Ac")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, deck=deck)
    st = play(st, "0 call", "1 fold", "2 check")
    for _ in range(3):
        st = play(st, "2 check", "0 check")
    assert st.payouts == (25, 0, 25)
    deck = stacked_deck({0: "2c3d", 1: "4c4d", 2: "2h3h"}, 0, "7s TsJsQd 2s Kh 3s Ac")
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0, deck=deck, ante=1)
    st = play(st, "0 call", "1 fold", "2 check")
    for _ in range(3):
        st = play(st, "2 check", "0 check")
    assert st.payouts == (26, 0, 27)  # 53 chips: the odd chip goes to seat 2 (left of button)


def test_side_pots_all_in_player_wins_only_what_they_covered():
    deck = stacked_deck({0: "KsKd", 1: "AsAd", 2: "QsQd"}, 0, "2c 3h7c9d 2d Jc 2h 4s")
    st = new_hand("nlhe-1", {0: 1000, 1: 100, 2: 1000}, button=0, deck=deck)
    st = play(st, "0 raiseTo 300", "1 allIn", "2 call")
    st = play(st, "2 check", "0 check", "2 check", "0 check", "2 check", "0 check")
    assert st.payouts == (400, 300, 0)  # main 3x100 to AA; side 2x200 to KK
    assert st.stacks == (1100, 300, 700)


def test_chips_are_conserved_and_stacks_final():
    st = new_hand("nlhe-1", {0: 500, 1: 300, 2: 700}, button=1, seed=5)
    st = play(st, f"{st.actor_seat} allIn")
    while not st.is_over:
        legal = legal_actions(st, st.actor_seat)
        st = play(st, f"{st.actor_seat} {'call' if legal.call else 'check'}")
    assert sum(st.stacks) == 1500 and min(st.stacks) >= 0


def test_hand_over_ops_and_turn_id_progress():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000}, button=0)
    t0 = st.turn_id
    st2 = play(st, "0 call")
    assert st2.turn_id == t0 + 1 and st2.actor_seat == 1


def test_states_are_immutable_and_apply_keeps_the_old_state():
    st = new_hand("nlhe-1", {0: 1000, 1: 1000, 2: 1000}, button=0)
    with pytest.raises(AttributeError):
        st.stacks = (0, 0, 0)
    with pytest.raises(AttributeError):
        st.new_field = 1
    new, ops = apply(st, 0, Action.raise_to(60))
    assert st.stacks == (1000, 990, 980) and st.actor_seat == 0 and len(st.operations) < len(new.operations)
    assert new.operations[-len(ops) :] == ops


def test_next_button_moves_clockwise_among_seats():
    from felt_engine.hand import next_button

    assert next_button(None, [4, 2, 7]) == 2
    assert next_button(2, [2, 4, 7]) == 4
    assert next_button(7, [2, 4, 7]) == 2
    assert next_button(5, [2, 4, 7]) == 7  # the previous button seat may be empty now


def test_three_way_dead_money_tie_pays_one_pot_7_7_7():
    # blinds 1/2 fold to a raise to 6 called twice; everyone plays the broadway board
    holes = {0: "8s9s", 1: "2c3d", 2: "4c5d", 3: "6c7d", 4: "2d3c"}
    deck = stacked_deck(holes, button=4, then="2h TsJhQd 4h Kc 5h Ah")
    st = new_hand("nlhe-1", {s: 100 for s in holes}, button=4, deck=deck, small_blind=1, big_blind=2)
    st = play(st, "2 raiseTo 6", "3 call", "4 call", "0 fold", "1 fold")
    while not st.is_over:
        st = play(st, f"{st.actor_seat} check")
    assert st.showdown and st.payouts == (0, 0, 7, 7, 7)
