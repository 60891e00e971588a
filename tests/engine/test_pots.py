"""Pot layering and settlement rules (the ante room, Texas Hold'em, Aetolia and Clawbet rules; DESIGN §1)."""

from __future__ import annotations

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from felt_engine.pots import Award, Pot, PotError, build_pots, settle, settle_trusted

ORDER = [1, 2, 3, 4, 5, 6]  # clockwise, first seat left of the button


def test_one_layer_per_distinct_contribution_level():
    pots = build_pots({1: 100, 2: 50, 3: 100, 4: 20, 5: 0}, live={1, 2, 3, 4})
    assert pots == (
        Pot(80, (1, 2, 3, 4), (1, 2, 3, 4)),
        Pot(90, (1, 2, 3), (1, 2, 3)),
        Pot(100, (1, 3), (1, 3)),
    )


def test_zero_contributions_make_no_layer():
    assert build_pots({1: 0, 2: 0}, live={1, 2}) == ()
    s = settle({1: 0, 2: 0}, {1, 2}, {1: 1, 2: 2}, [1, 2])
    assert s.pots == () and s.awards == () and s.payouts == {1: 0, 2: 0}


def test_folded_chips_stay_in_the_pot():
    # seat 2 folded after putting in 50: its chips stay in the pot it reached
    pots = build_pots({1: 100, 2: 50, 3: 100}, live={1, 3})
    assert pots == (Pot(250, (1, 2, 3), (1, 3)),)
    s = settle({1: 100, 2: 50, 3: 100}, {1, 3}, {1: 5, 3: 9}, ORDER)
    assert s.payouts == {1: 0, 2: 0, 3: 250}


def test_adjacent_layers_with_the_same_eligible_set_are_one_pot():
    # levels 1, 2 (dead blinds) and 6 all have live hands {3, 4, 5}: one pot
    pots = build_pots({1: 1, 2: 2, 3: 6, 4: 6, 5: 6}, live={3, 4, 5})
    assert pots == (Pot(21, (1, 2, 3, 4, 5), (3, 4, 5)),)
    # a different eligible set above starts a new pot; uncalled chips stay apart
    pots = build_pots({1: 2, 2: 4, 3: 4, 4: 9, 5: 12}, live={2, 4, 5})
    assert pots == (Pot(18, (1, 2, 3, 4, 5), (2, 4, 5)), Pot(10, (4, 5), (4, 5)), Pot(3, (5,), (5,)))


def test_three_way_tie_with_dead_money_splits_one_pot_7_7_7():
    # SB 1 and BB 2 folded; three live hands put in 6 each and tie: 21 chips, 7 each
    s = settle({1: 1, 2: 2, 3: 6, 4: 6, 5: 6}, {3, 4, 5}, {3: 5, 4: 5, 5: 5}, ORDER)
    assert s.payouts == {1: 0, 2: 0, 3: 7, 4: 7, 5: 7}
    assert s.awards == (Award(0, 3, 7, "split"), Award(0, 4, 7, "split"), Award(0, 5, 7, "split"))


def test_odd_chip_is_decided_once_per_pot():
    # 22 chips in one pot, three tied: only one odd chip, to the first winner clockwise
    s = settle({1: 1, 2: 3, 3: 6, 4: 6, 5: 6}, {3, 4, 5}, {3: 5, 4: 5, 5: 5}, [4, 5, 1, 2, 3])
    assert s.payouts == {1: 0, 2: 0, 3: 7, 4: 8, 5: 7}


def test_only_live_hands_win():
    # the folded seat holds the strongest cards; it must win nothing
    s = settle({1: 40, 2: 40, 3: 40}, {1, 2}, {1: 3, 2: 7, 3: 99}, ORDER)
    assert s.payouts == {1: 0, 2: 120, 3: 0}
    assert s.awards == (Award(0, 2, 120, "win"),)


def test_each_layer_awarded_separately():
    # short all-in seat 1 has the best hand; seat 2 beats seat 3 for the side pot
    s = settle({1: 30, 2: 100, 3: 100}, {1, 2, 3}, {1: 9, 2: 5, 3: 1}, ORDER)
    assert s.awards == (Award(0, 1, 90, "win"), Award(1, 2, 140, "win"))
    assert s.payouts == {1: 90, 2: 140, 3: 0}


def test_all_in_wins_at_most_its_contribution_from_each_opponent():
    # the Aetolia rules: all-in with 100 wins at most 100 per player; the rest goes to the next best
    contributions = {1: 100, 2: 300, 3: 250, 4: 60}
    s = settle(contributions, {1, 2, 3}, {1: 10, 2: 2, 3: 5}, ORDER)
    assert s.payouts[1] == 100 + 100 + 100 + 60  # own 100 + 100 from 2, 3 + 60 from folded 4
    assert s.payouts[3] == 150 + 150  # 100..250 layer from 2 and 3
    assert s.payouts[2] == 50  # unmatched top 50 returned
    assert sum(s.payouts.values()) == sum(contributions.values())


def test_ties_split_each_layer():
    s = settle({1: 50, 2: 100, 3: 100}, {1, 2, 3}, {1: 5, 2: 5, 3: 5}, ORDER)
    assert s.awards == (
        Award(0, 1, 50, "split"),
        Award(0, 2, 50, "split"),
        Award(0, 3, 50, "split"),
        Award(1, 2, 50, "split"),
        Award(1, 3, 50, "split"),
    )


def test_odd_chips_go_clockwise_from_left_of_button():
    # 3 tied winners, 100 chips: 34/33/33, the extra chip to the first winner left of the button
    contributions = {2: 25, 4: 25, 5: 25, 6: 25}
    strength = {2: 7, 4: 7, 5: 7, 6: 1}
    s = settle(contributions, {2, 4, 5, 6}, strength, [5, 6, 1, 2, 3, 4])
    assert s.payouts == {5: 34, 2: 33, 4: 33, 6: 0}
    # two odd chips: first two tied winners clockwise get one each
    s = settle({1: 11, 2: 11, 3: 11, 4: 11, 5: 0}, {1, 2, 3, 4}, {1: 2, 2: 2, 3: 2, 4: 1}, [3, 4, 5, 1, 2])
    assert s.payouts == {3: 15, 1: 15, 2: 14, 4: 0, 5: 0}
    assert [a.seat for a in s.awards] == [3, 1, 2]


def test_odd_chips_are_decided_per_layer():
    s = settle({1: 3, 2: 3, 3: 1}, {1, 2, 3}, {1: 4, 2: 4, 3: 0}, [2, 3, 1])
    # layer 0: 3 chips split 1 and 2 -> 2 to seat 2; layer 1: 4 chips -> 2/2
    assert s.awards == (
        Award(0, 2, 2, "split"),
        Award(0, 1, 1, "split"),
        Award(1, 2, 2, "split"),
        Award(1, 1, 2, "split"),
    )


def test_unmatched_chips_return_uncalled():
    s = settle({1: 500, 2: 120}, {1, 2}, {1: 1, 2: 9}, ORDER)
    assert s.awards == (Award(0, 2, 240, "win"), Award(1, 1, 380, "uncalled"))
    assert s.payouts == {1: 380, 2: 240}


def test_uncalled_bet_returned_when_everyone_folds():
    # no showdown: seat 3 bet 200, others folded having put in 20 each
    s = settle({1: 20, 2: 20, 3: 200}, {3}, None, ORDER)
    assert s.awards == (Award(0, 3, 60, "win"), Award(1, 3, 180, "uncalled"))
    assert s.payouts == {1: 0, 2: 0, 3: 240}


def test_layer_with_no_live_contributor_is_refunded():
    # seat 3 (live) is all-in for 10; seats 1 and 2 built a layer above it, then both left
    s = settle({1: 60, 2: 60, 3: 10}, {3}, {3: 1}, ORDER)
    assert s.awards == (
        Award(0, 3, 30, "win"),
        Award(1, 1, 50, "refund"),
        Award(1, 2, 50, "refund"),
    )
    assert s.payouts == {1: 50, 2: 50, 3: 30}


def test_everyone_folded_refunds_every_layer():
    # abandoned hand (everyone left): nothing is destroyed
    s = settle({1: 10, 2: 30, 3: 30}, set(), None, ORDER)
    assert s.payouts == {1: 10, 2: 30, 3: 30}
    assert {a.reason for a in s.awards} == {"refund"}


def test_win_without_showdown_single_live_seat():
    s = settle({1: 10, 2: 10, 3: 10}, [2], None, ORDER)
    assert s.awards == (Award(0, 2, 30, "win"),)


# ---- input validation ---------------------------------------------------------------


def test_negative_contribution_rejected():
    with pytest.raises(PotError, match="negative"):
        build_pots({1: -5, 2: 10}, {1, 2})


def test_non_int_contribution_rejected():
    with pytest.raises(PotError):
        build_pots({1: 1.5, 2: 10}, {1, 2})  # type: ignore[dict-item]  # a float on purpose: refused


def test_unknown_live_seat_rejected():
    with pytest.raises(PotError, match="not in contributions"):
        settle({1: 10, 2: 10}, {1, 2, 7}, {1: 1, 2: 2, 7: 3}, [1, 2, 7])


def test_live_seat_without_strength_rejected():
    with pytest.raises(PotError, match="no strength"):
        settle({1: 10, 2: 10}, {1, 2}, {1: 1}, [1, 2])


def test_strength_for_unknown_seat_rejected():
    with pytest.raises(PotError, match="unknown"):
        settle({1: 10, 2: 10}, {1, 2}, {1: 1, 2: 2, 9: 3}, [1, 2])


def test_no_showdown_with_several_live_seats_rejected():
    with pytest.raises(PotError, match="strength is required"):
        settle({1: 10, 2: 10}, {1, 2}, None, [1, 2])


def test_seat_order_must_cover_contributors():
    with pytest.raises(PotError, match="missing"):
        settle({1: 10, 2: 10}, {1, 2}, {1: 1, 2: 1}, [1])
    with pytest.raises(PotError, match="duplicate"):
        settle({1: 10, 2: 10}, {1, 2}, {1: 1, 2: 1}, [1, 2, 1])


def test_pot_error_is_value_error():
    assert issubclass(PotError, ValueError)


# ---- properties ---------------------------------------------------------------------


@st.composite
def hands(draw):
    seats = draw(st.lists(st.integers(0, 9), min_size=1, max_size=10, unique=True))
    contributions = {s: draw(st.integers(0, 1000)) for s in seats}
    live = draw(st.sets(st.sampled_from(seats)))
    showdown = len(live) > 1 or draw(st.booleans())
    strength = {s: draw(st.integers(0, 4)) for s in live} if showdown else None
    order = draw(st.permutations(list(range(10))))
    return contributions, live, strength, order


@settings(max_examples=400, deadline=None)
@given(hands())
def test_property_payouts_sum_to_contributions(hand):
    contributions, live, strength, order = hand
    s = settle(contributions, live, strength, order)
    assert sum(s.payouts.values()) == sum(contributions.values())
    assert sum(p.amount for p in s.pots) == sum(contributions.values())
    for i, pot in enumerate(s.pots):
        assert sum(a.amount for a in s.awards if a.pot_index == i) == pot.amount
    assert all(a.amount > 0 for a in s.awards)


@settings(max_examples=400, deadline=None)
@given(hands())
def test_property_nobody_wins_more_than_it_covers(hand):
    contributions, live, strength, order = hand
    s = settle(contributions, live, strength, order)
    for seat, got in s.payouts.items():
        mine = contributions[seat]
        assert got <= sum(min(mine, c) for c in contributions.values())
        if seat not in live:  # folded seats only get their own chips back
            assert got <= mine
            assert all(a.reason in ("uncalled", "refund") for a in s.awards if a.seat == seat)


@settings(max_examples=400, deadline=None)
@given(hands())
def test_property_winners_of_a_layer_are_its_best_live_hands(hand):
    contributions, live, strength, order = hand
    s = settle(contributions, live, strength, order)
    for i, pot in enumerate(s.pots):
        winners = {a.seat for a in s.awards if a.pot_index == i and a.reason in ("win", "split")}
        if not winners:
            continue
        assert winners <= set(pot.eligible)
        if strength is not None:
            best = max(strength[x] for x in pot.eligible)
            assert winners == {x for x in pot.eligible if strength[x] == best}
            shares = [a.amount for a in s.awards if a.pot_index == i]
            assert max(shares) - min(shares) <= 1


@settings(max_examples=400, deadline=None)
@given(hands())
def test_property_tied_winners_of_one_pot_differ_by_at_most_one_chip(hand):
    """A pot is its eligible set: summed over everything those hands can win together,
    no two tied winners differ by more than one chip (and no two adjacent pots have the
    same eligible set)."""
    contributions, live, strength, order = hand
    s = settle(contributions, live, strength, order)
    contested = [p for p in s.pots if len(p.contributors) > 1 and p.eligible]
    for below, above in zip(contested, contested[1:]):
        assert below.eligible != above.eligible
    won: dict[frozenset[int], dict[int, int]] = {}
    for a in s.awards:
        if a.reason == "split":
            group = won.setdefault(frozenset(s.pots[a.pot_index].eligible), {})
            group[a.seat] = group.get(a.seat, 0) + a.amount
    for shares in won.values():
        assert max(shares.values()) - min(shares.values()) <= 1


# ---- cross-check against PokerKit, an independent engine --------------------------

RANKS, SUITS = "23456789TJQKA", "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_property_matches_pokerkit_settlement(data):
    """Random ante/blind NL hands played in PokerKit settle to the same stacks here."""
    pokerkit = pytest.importorskip("pokerkit")
    auto = pokerkit.Automation
    n = data.draw(st.integers(2, 6))
    stacks = data.draw(st.lists(st.integers(15, 300), min_size=n, max_size=n))
    blinds = data.draw(st.sampled_from([(0, 0), (1, 2), (5, 10)]))
    ante = data.draw(st.sampled_from([0, 1, 10]))
    if blinds == (0, 0) and ante == 0:
        ante = 10
    deck = list(data.draw(st.permutations(DECK)))
    state = pokerkit.NoLimitTexasHoldem.create_state(
        (
            auto.ANTE_POSTING,
            auto.BET_COLLECTION,
            auto.BLIND_OR_STRADDLE_POSTING,
            auto.RUNOUT_COUNT_SELECTION,
            auto.HOLE_CARDS_SHOWING_OR_MUCKING,
            auto.HAND_KILLING,
        ),
        False,
        ante,
        blinds,
        max(blinds[1], 10),
        stacks,
        n,
        mode=pokerkit.Mode.CASH_GAME,
    )
    while not state.can_push_chips():
        if state.can_burn_card():
            state.burn_card(deck.pop())
        elif state.can_deal_hole():
            state.deal_hole(deck.pop())
        elif state.can_deal_board():
            state.deal_board(deck.pop())
        else:
            choice = data.draw(st.sampled_from(["f", "cc", "min", "max", "mid"]))
            if choice == "f" and state.checking_or_calling_amount and state.can_fold():
                state.fold()
            elif choice in ("min", "max", "mid") and state.can_complete_bet_or_raise_to():
                lo = state.min_completion_betting_or_raising_to_amount
                hi = state.max_completion_betting_or_raising_to_amount
                state.complete_bet_or_raise_to({"min": lo, "max": hi, "mid": (lo + hi) // 2}[choice])
            else:
                state.check_or_call()
    contributions = {i: stacks[i] - state.stacks[i] for i in range(n)}
    live = {i for i in range(n) if state.statuses[i]}
    strength = None
    if len(live) > 1:
        hands = {i: state.get_hand(i, 0, 0) for i in live}
        ranked = sorted(set(hands.values()))
        strength = {i: ranked.index(h) for i, h in hands.items()}
        assume(len(set(strength.values())) == len(live))  # odd-chip conventions differ
    while state.can_push_chips():
        state.push_chips()
        while state.can_pull_chips():
            state.pull_chips()
    s = settle(contributions, live, strength, list(range(n)))
    event(f"layers={min(len(s.pots), 3)} showdown={strength is not None}")
    assert [stacks[i] - contributions[i] + s.payouts[i] for i in range(n)] == list(state.stacks)


@settings(max_examples=400, deadline=None)
@given(hands(), st.data())
def test_property_the_engines_unchecked_settle_equals_settle(hand, data):
    """``settle_trusted`` (the engine's path, which skips checking its own inputs) settles
    every valid hand, dead money included, exactly as ``settle`` does."""
    contributions, live, strength, order = hand
    dead = {s: data.draw(st.integers(0, a)) for s, a in contributions.items() if data.draw(st.booleans())}
    assert settle_trusted(contributions, live, strength, order, dead) == settle(
        contributions, live, strength, order, dead
    )
