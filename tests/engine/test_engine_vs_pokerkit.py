"""Differential check: turn order, call amounts and bet/raise bounds agree with PokerKit
on random no-limit hold'em hands (3-9 players) up to the first all-in.

After an all-in the engines deliberately differ where the seeds are explicit and
PokerKit is not: a short all-in does not reopen raising for players who already
acted, and a short big blind does not reduce the nominal call (see test_betting.py).
"""

import random

import pytest

from felt_engine import Action, Deck, TableStakes, apply, get_profile, start_hand
from felt_engine.betting import legal_actions_at

pokerkit = pytest.importorskip("pokerkit")


def test_betting_bounds_and_turn_order_agree_with_pokerkit():
    A = pokerkit.Automation
    auto = (
        A.ANTE_POSTING,
        A.BET_COLLECTION,
        A.BLIND_OR_STRADDLE_POSTING,
        A.CARD_BURNING,
        A.HOLE_DEALING,
        A.BOARD_DEALING,
        A.RUNOUT_COUNT_SELECTION,
        A.HOLE_CARDS_SHOWING_OR_MUCKING,
        A.HAND_KILLING,
        A.CHIPS_PUSHING,
        A.CHIPS_PULLING,
    )
    rng = random.Random(7)
    compared = 0
    for _ in range(300):
        n = rng.randint(3, 9)
        stacks = [rng.randint(40, 3000) for _ in range(n)]
        b = rng.randrange(n)
        st, _ = start_hand(
            get_profile("nlhe-1"), TableStakes(10, 20, 0, 20, 10**6), dict(enumerate(stacks)), b, Deck.shuffled(rng)
        )
        pk = pokerkit.NoLimitTexasHoldem.create_state(
            auto, True, 0, (10, 20), 20, [stacks[(b + 1 + k) % n] for k in range(n)], n, mode=pokerkit.Mode.CASH_GAME
        )
        while not st.is_over and min(st.stacks) > 0:
            i = st.actor
            assert pk.actor_index == (i - b - 1) % n
            la = legal_actions_at(st, i)
            rb = la.raise_to or la.bet
            can = pk.can_complete_bet_or_raise_to()
            assert la.to_call == pk.checking_or_calling_amount
            ours = (rb.min, rb.max) if rb else None
            if ours is None and la.all_in is not None and la.all_in > la.to_call:
                ours = (la.all_in_to, la.all_in_to)  # PokerKit lists a short all-in raise so
            theirs = (
                (pk.min_completion_betting_or_raising_to_amount, pk.max_completion_betting_or_raising_to_amount)
                if can
                else None
            )
            assert ours == theirs
            compared += 1
            r = rng.random()
            if la.call and r < 0.15:
                action = Action.fold()
                pk.fold()
            elif r < 0.7 or rb is None:
                action = Action.call() if la.call else Action.check()
                pk.check_or_call()
            else:
                amount = rng.randint(rb.min, rb.max)
                pk.complete_bet_or_raise_to(amount)
                action = Action("bet" if la.bet else "raiseTo", amount)
            st = apply(st, st.seats[i], action).state
    assert compared > 1000
