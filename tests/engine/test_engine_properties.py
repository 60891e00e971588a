"""Property tests: random legal play over random profiles, stacks and seat counts."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from felt_engine.actions import PREACTIONS, Action
from felt_engine.betting import funded_count, legal_actions_at, legal_for, to_match
from felt_engine.cards import Deck
from felt_engine.errors import IllegalAction
from felt_engine.hand import apply, leave, start_hand, timeout
from felt_engine.operations import chips_committed
from felt_engine.preactions import set_preaction, step_auto
from felt_engine.profiles import get_profile
from felt_engine.testing import default_stakes, legal_action_list
from felt_engine.views import seat_view, visible_operations

VARIANTS = [
    ("nlhe-1", None),
    ("plhe-1", None),
    ("flhe-1", None),
    ("ante-nl-1", None),
    ("draw5-1", "no-limit"),
    ("draw5-1", "pot-limit"),
    ("draw5-1", "fixed-limit"),
]


@hs.composite
def hands(draw):
    version, structure = draw(hs.sampled_from(VARIANTS))
    p = get_profile(version)
    n = draw(hs.integers(p.min_seats, p.max_seats))
    seats = sorted(draw(hs.sets(hs.integers(0, 11), min_size=n, max_size=n)))
    low = 10 if version == "ante-nl-1" else 1
    stacks = {s: draw(hs.integers(low, 400)) for s in seats}
    button = draw(hs.sampled_from(seats))
    ante = draw(hs.sampled_from([0, 0, 1, 5])) if p.blinds else None
    stakes = default_stakes(version, ante=ante, structure=structure)
    return p, stakes, stacks, button, draw(hs.integers(0, 2**32)), draw(hs.integers(0, 2**32))


def check_escrow(stacks_before, st, ops):
    """Stack changes are exactly the escrowed commitments minus the awards."""
    paid = {}
    for o in ops:
        if o.kind == "award":
            paid[o.seat] = paid.get(o.seat, 0) + o.amount
    committed = chips_committed(ops)
    for i, s in enumerate(st.seats):
        assert stacks_before[i] - st.stacks[i] == committed.get(s, 0) - paid.get(s, 0)


def check_views(st):
    for j, seat in enumerate(st.seats):
        v = seat_view(st, seat)
        for k, other in enumerate(v["seats"]):
            if k != j and other["cards"] is not None:
                assert st.shown[k] is not None
                assert not st.folded[k] or st.shown[k] is not None
        for op in visible_operations(st.operations, seat):
            if op["kind"] == "burn" or (op["kind"] in ("deal_hole", "draw") and op["seat"] != seat):
                assert op["cards"] == [] and op["discarded"] == []
    if st.is_over and not st.showdown:
        assert not any(op.kind == "show" and op.detail == "showdown" for op in st.operations)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_random_legal_play_conserves_chips_terminates_and_never_leaks(h):
    profile, stakes, stacks, button, deck_seed, play_seed = h
    rng = random.Random(play_seed)
    total = sum(stacks.values())
    st, ops = start_hand(profile, stakes, stacks, button, Deck.from_seed(deck_seed))
    check_escrow(tuple(stacks[s] for s in st.seats), st, ops)
    steps = 0
    while not st.is_over:
        steps += 1
        assert steps < 400, "hand did not terminate"
        assert st.actor is not None
        assert sum(st.stacks) + st.pot == total
        assert min(st.stacks) >= 0
        seat = st.actor_seat
        legal = legal_actions_at(st, st.actor)
        assert legal.any
        if st.phase == "betting":  # the turn the state carries is what it is now
            tm, nf = to_match(st), funded_count(st)
            assert st.turn == (legal_for(st, st.actor, tm, nf), tm, nf)
        else:
            assert st.turn is None
        r = rng.random()
        if r < 0.05:
            step = timeout(st, seat, st.turn_id)
            assert chips_committed(step.ops) == {}
        elif r < 0.08:
            leaver = rng.choice(st.seats)
            try:
                step = leave(st, leaver)
            except IllegalAction as e:
                assert e.code == "already_folded"
                continue
        elif r < 0.12 and st.phase == "betting":
            other = rng.choice(st.seats)
            try:
                st = set_preaction(st, other, rng.choice(sorted(PREACTIONS)))
            except IllegalAction as e:
                assert e.code in ("already_folded", "invalid_preaction")
            step = step_auto(st)
            if step is None:
                continue
        else:
            action = rng.choice(legal_action_list(st, rng))
            step = apply(st, seat, action)
        check_escrow(st.stacks, step.state, step.ops)
        st = step.state
        # after a step, leaving players with a queued check/fold act automatically
        while not st.is_over and (auto := step_auto(st)) is not None:
            st = auto.state
    assert sum(st.stacks) == total and min(st.stacks) >= 0
    assert sum(st.payouts) == sum(st.contrib)
    live = [i for i in range(st.n) if not st.folded[i]]
    if st.showdown:
        assert all(st.shown[i] is not None for i in live)
        if profile.game == "holdem":
            assert len(st.board) == 5
    else:
        assert all(x is None for x in st.shown)
    check_views(st)


@settings(max_examples=150, deadline=None)
@given(hands())
def test_out_of_bounds_amounts_are_rejected_and_change_nothing(h):
    profile, stakes, stacks, button, deck_seed, play_seed = h
    rng = random.Random(play_seed)
    st, _ = start_hand(profile, stakes, stacks, button, Deck.from_seed(deck_seed))
    while not st.is_over:
        legal = legal_actions_at(st, st.actor)
        seat = st.actor_seat
        for kind, b in (("bet", legal.bet), ("raiseTo", legal.raise_to)):
            if b is not None:
                for bad in (b.min - 1, b.max + 1):
                    if bad == legal.all_in_to or bad <= 0:
                        continue
                    try:
                        apply(st, seat, Action(kind, bad))
                    except IllegalAction as e:
                        assert e.code in ("amount_out_of_bounds",)
                    else:
                        raise AssertionError(f"{kind} {bad} accepted outside {b}")
        if not legal.check:
            try:
                apply(st, seat, Action.check())
            except IllegalAction as e:
                assert e.code in ("cannot_check", "not_betting_phase")
            else:
                raise AssertionError("check accepted while facing a bet")
        st = apply(st, seat, rng.choice(legal_action_list(st, rng))).state
