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
from felt_engine.testing import default_stakes, new_hand, random_action

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
