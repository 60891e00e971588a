"""Rules profiles are data; stakes are validated against them."""

import dataclasses

import pytest

from felt_engine.errors import ConfigError
from felt_engine.profiles import PROFILES, Structure, TableStakes, get_profile, validate_stakes


def test_profiles_by_rules_version():
    assert set(PROFILES) == {"nlhe-1", "plhe-1", "flhe-1", "ante-nl-1", "draw5-1"}
    assert get_profile("plhe-1").default_structure is Structure.POT_LIMIT
    with pytest.raises(ConfigError) as e:
        get_profile("nlhe-99")
    assert e.value.code == "unknown_rules_version"


def test_profiles_are_frozen_data():
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_profile("nlhe-1").max_seats = 12


def test_profile_facts_from_the_seeds():
    a = get_profile("ante-nl-1")
    assert (a.blinds, a.fixed_ante, a.max_seats, a.first_to_act, a.leave_policy, a.money) == (
        False,
        10,
        10,
        "left_of_dealer",
        "fold_now",
        "balance",
    )
    assert not any(s.burn for s in a.streets)
    n = get_profile("nlhe-1")
    assert (n.min_seats, n.max_seats, n.leave_policy, n.start) == (2, 9, "queue_check_fold", "explicit")
    assert all(s.burn for s in n.streets[1:])
    d = get_profile("draw5-1")
    assert (d.min_seats, d.max_seats, d.game) == (2, 6, "draw5")
    assert set(d.structures) == set(Structure)
    assert get_profile("flhe-1").raise_cap == 4


def test_blind_profiles_need_blinds():
    p = get_profile("nlhe-1")
    validate_stakes(p, TableStakes(10, 20, 0, 400, 2000))
    validate_stakes(p, TableStakes(10, 20, 5, 400, 2000))  # antes with blinds (the Aetolia rules)
    for bad in (
        TableStakes(0, 20, 0, 400, 2000),
        TableStakes(30, 20, 0, 400, 2000),
        TableStakes(10, 20, 0, 2000, 400),
        TableStakes(10, 20, -1, 400, 2000),
        TableStakes(10, 20, 0, None, None),
    ):
        with pytest.raises(ConfigError):
            validate_stakes(p, bad)


def test_ante_nl_1_ante_is_10_and_the_balance_plays():
    p = get_profile("ante-nl-1")
    validate_stakes(p, TableStakes(ante=10))
    for bad in (TableStakes(ante=20), TableStakes(ante=10, min_buy_in=10, max_buy_in=100), TableStakes(10, 20, 10)):
        with pytest.raises(ConfigError):
            validate_stakes(p, bad)


def test_draw_buy_in_is_1_to_50_antes_and_structure_selectable():
    p = get_profile("draw5-1")
    validate_stakes(p, TableStakes(ante=10, min_buy_in=10, max_buy_in=500, structure=Structure.FIXED_LIMIT))
    for bad in (
        TableStakes(ante=10, min_buy_in=5, max_buy_in=500),
        TableStakes(ante=10, min_buy_in=10, max_buy_in=510),
        TableStakes(ante=0, min_buy_in=10, max_buy_in=500),
    ):
        with pytest.raises(ConfigError):
            validate_stakes(p, bad)
    with pytest.raises(ConfigError) as e:
        validate_stakes(get_profile("nlhe-1"), TableStakes(10, 20, 0, 400, 2000, Structure.POT_LIMIT))
    assert e.value.code == "bad_structure"
