"""Five-card draw (draw5-1): bet, draw, bet; NL/PL/FL structures."""

import pytest

from felt_engine.actions import Action, Bounds
from felt_engine.cards import parse_cards
from felt_engine.errors import IllegalAction
from felt_engine.hand import apply, legal_actions
from felt_engine.testing import new_hand, play, stacked_deck

HANDS = {0: "AsAdAhKcKd", 1: "2c3d4h5s7c", 2: "9c9dJhQs3c"}


def code_of(st, seat, action):
    with pytest.raises(IllegalAction) as e:
        apply(st, seat, action)
    return e.value.code


def draw_hand(structure="no-limit", stacks=None, hands=HANDS, stub="", button=0, **kw):
    stacks = stacks or {s: 500 for s in hands}
    deck = stacked_deck(hands, button, stub)
    return new_hand("draw5-1", stacks, button, deck=deck, structure=structure, **kw)


def test_draw_deals_five_cards_and_left_of_dealer_acts_first():
    st = draw_hand()
    assert [len(h) for h in st.holes] == [5, 5, 5]
    assert st.holes[0] == parse_cards(HANDS[0])
    assert st.actor_seat == 1 and st.pot == 30 and st.bets == (0, 0, 0)
    assert legal_actions(st, 1).bet == Bounds(10, 490)  # NL: min bet = ante


def test_draw_round_replaces_from_stub_in_seat_order_left_of_dealer():
    st = draw_hand(stub="6c6d 8h8s8d")
    st = play(st, "1 check", "2 check", "0 check")
    assert st.phase == "draw" and st.actor_seat == 1
    assert legal_actions(st, 1).to_dict()["draw"] == {"min": 0, "max": 5}
    st = play(st, "1 draw 5s 7c")
    assert sorted(st.holes[1]) == sorted(parse_cards("2c3d4h6c6d"))
    st = play(st, "2 draw")  # stand pat
    st = play(st, "0 draw Kc Kd Ah")
    assert sorted(st.holes[0]) == sorted(parse_cards("AsAd8h8s8d"))
    assert st.phase == "betting" and st.street_name == "postdraw" and st.actor_seat == 1


def test_invalid_discards_are_rejected():
    st = play(draw_hand(), "1 check", "2 check", "0 check")
    with pytest.raises(IllegalAction) as e:
        apply(st, 1, Action.draw(parse_cards("As")))
    assert e.value.code == "invalid_discard"
    with pytest.raises(IllegalAction) as e:
        apply(st, 1, Action("draw", None, parse_cards("2c 2c")))
    assert e.value.code == "invalid_discard"
    with pytest.raises(IllegalAction) as e:
        apply(st, 1, Action.check())
    assert e.value.code == "not_betting_phase"
    with pytest.raises(IllegalAction) as e:
        apply(draw_hand(), 1, Action.draw())
    assert e.value.code == "not_draw_phase"


def test_short_stub_is_completed_from_earlier_discards_reshuffled_never_own():
    stacks = {s: 500 for s in range(6)}
    st = new_hand("draw5-1", stacks, 0, seed=11, reshuffle_seed=1234)
    st = play(st, "1 check", "2 check", "3 check", "4 check", "5 check", "0 check")
    assert st.deck.remaining == 22
    earlier = set()
    for seat in (1, 2, 3, 4):
        discard = st.holes[seat]
        earlier |= set(discard)
        st, _ = apply(st, seat, Action.draw(discard))
    assert st.deck.remaining == 2
    own = st.holes[5]
    st, ops = apply(st, 5, Action.draw(own))
    new = set(st.holes[5])
    assert len(new) == 5 and not new & set(own)
    assert len(new & earlier) == 3
    st, _ = apply(st, 0, Action.draw(st.holes[0]))
    everything = [c for h in st.holes for c in h]
    assert len(everything) == len(set(everything)) == 30
    # deterministic given the seed: same inputs, same result
    again = new_hand("draw5-1", stacks, 0, seed=11, reshuffle_seed=1234)
    again = play(again, "1 check", "2 check", "3 check", "4 check", "5 check", "0 check")
    for seat in (1, 2, 3, 4, 5, 0):
        again, _ = apply(again, seat, Action.draw(again.holes[seat]))
    assert again.holes == st.holes


def test_fixed_limit_draw_bets_one_ante_then_one_or_two_antes():
    # the five-card draw rules: "1 ante on the first round and 1 or 2 antes on the second"
    st = draw_hand("fixed-limit")
    assert legal_actions(st, 1).bet == Bounds(10, 10)
    assert code_of(st, 1, Action.bet(20)) == "amount_out_of_bounds"
    st = play(st, "1 bet 10")
    assert legal_actions(st, 2).raise_to == Bounds(20, 20)
    st = play(st, "2 call", "0 call", "1 draw", "2 draw", "0 draw")
    assert legal_actions(st, 1).bet == Bounds(10, 20)
    assert code_of(st, 1, Action.bet(15)) == "amount_out_of_bounds"
    assert play(st, "1 bet 10").bets == (0, 10, 0)
    st = play(st, "1 bet 20")
    assert legal_actions(st, 2).raise_to == Bounds(30, 40)
    st = play(st, "2 raiseTo 30")  # a 1-ante raise is a full raise: it counts and reopens
    assert st.raise_count == 2 and legal_actions(st, 0).raise_to == Bounds(40, 50)


def test_pot_limit_draw_max_bet_is_the_pot():
    st = draw_hand("pot-limit")
    assert legal_actions(st, 1).bet == Bounds(10, 30)


def test_draw_showdown_compares_five_card_hands():
    st = draw_hand(stub="")
    st = play(st, "1 bet 100", "2 call", "0 call", "1 draw", "2 draw", "0 draw", "1 check", "2 check", "0 check")
    assert st.is_over and st.showdown
    assert st.payouts == (330, 0, 0)  # full house wins
    assert st.board == ()


def test_all_in_player_still_draws_then_no_more_betting():
    st = draw_hand(stacks={0: 500, 1: 60, 2: 500})
    st = play(st, "1 allIn", "2 fold", "0 call")
    assert st.phase == "draw" and st.actor_seat == 1
    st = play(st, "1 draw 7c")
    assert st.actor_seat == 0
    st = play(st, "0 draw")
    assert st.is_over and st.showdown


def test_everyone_folds_before_the_draw():
    st = play(draw_hand(), "1 bet 50", "2 fold", "0 fold")
    assert st.is_over and not st.showdown and st.payouts[1] == 80
