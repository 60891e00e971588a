"""Over random states of every profile (the engine's own hands, advanced by random legal
play), every level and both baselines answer with an action the engine accepts — including
`hit`/add-now bets at ante-nl-1 and the cards to draw at draw5-1 in all three structures."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from felt_bots.harness import PLAYERS, PROFILES
from felt_bots.offline import config_of, engine_action, view
from felt_engine import apply, get_profile
from felt_engine.testing import default_stakes, new_hand, random_action, stacked_deck

PROFILE_LABELS = sorted(PROFILES)


@st.composite
def states(draw):
    label = draw(st.sampled_from(PROFILE_LABELS))
    version, structure = PROFILES[label]
    profile = get_profile(version)
    n = draw(st.integers(2, min(6, profile.max_seats)))
    seats = sorted(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n, unique=True)))
    stacks = {s: draw(st.integers(15, 3000)) for s in seats}
    seed = draw(st.integers(0, 2**32))
    state = new_hand(
        version, stacks, button=draw(st.sampled_from(seats)), seed=seed, structure=structure, small_blind=1, big_blind=2
    )
    rng = random.Random(seed)
    for _ in range(draw(st.integers(0, 12))):
        if state.phase == "over":
            break
        state, _ = apply(state, state.actor_seat, random_action(state, rng))
    return label, state, seed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states())
def test_every_player_answers_legally_in_random_states(case) -> None:
    label, state, seed = case
    if state.phase == "over":
        return
    version, structure = PROFILES[label]
    config = config_of("t", version, default_stakes(version, small_blind=1, big_blind=2, structure=structure))
    seat = state.actor_seat
    for name, decide in PLAYERS.items():
        action = decide(view(state, seat, config), random.Random(seed))
        if version == "ante-nl-1":
            assert action["type"] in ("hit", "bet", "fold", "allIn"), (name, action)
        apply(state, seat, engine_action(state, seat, action))  # raises IllegalAction if not legal


def test_a_pat_straight_or_flush_before_the_draw_is_played_not_crashed_on() -> None:
    """Five-card draw: a made hand without a pair (the normal bot once looked for its pair's
    rank and raised on an empty sequence, found by the property test above)."""
    holes = {0: "2h5h7h9hJh", 1: "9dTcJdQhKd", 2: "4c5c6c7c8c"}
    for label in ("draw5-nl", "draw5-pl", "draw5-fl"):
        version, structure = PROFILES[label]
        state = new_hand(version, {0: 500, 1: 500, 2: 500}, button=0, deck=stacked_deck(holes, 0), structure=structure)
        config = config_of("t", version, default_stakes(version, structure=structure))
        for _ in range(3):
            seat = state.actor_seat
            for decide in PLAYERS.values():
                action = decide(view(state, seat, config), random.Random(seat))
                apply(state, seat, engine_action(state, seat, action))  # raises IllegalAction if not legal
            state, _ = apply(
                state, seat, engine_action(state, seat, PLAYERS["normal"](view(state, seat, config), random.Random(0)))
            )
