"""The default lobby fits a fresh account, and a join without `buy_in` brings the largest
amount in the table's range that the balance covers (below the minimum: a clear refusal)."""

from __future__ import annotations

import pytest

from felt_contracts.table import Admission, GetView, Join
from felt_engine.profiles import PROFILES, Structure, eligible_stack, get_profile, resolve_structure
from felt_runtime.bus import BusError
from felt_table.model.lobby import DEFAULT_TABLES, check_config, stakes_of
from felt_wallet.settings import WalletSettings

from tests.table.conftest import balance, cmd, create_table, player


def test_every_default_table_is_playable_from_the_starting_grant() -> None:
    grant = WalletSettings().grant  # what a fresh account gets, as the wallet is configured
    for cfg in DEFAULT_TABLES:
        assert check_config(cfg) is None, cfg.table_id
        profile, stakes = get_profile(cfg.rules_version), stakes_of(cfg)
        if profile.money == "buy_in":
            assert cfg.min_buy_in is not None and cfg.min_buy_in <= grant, f"{cfg.table_id} wants {cfg.min_buy_in}"
            stack = min(grant, cfg.max_buy_in or 0)
            assert stack >= 10 * (stakes.big_blind or stakes.ante), f"{cfg.table_id}: {stack} is not a real stack"
        else:
            stack = grant
        assert eligible_stack(profile, stakes, stack), cfg.table_id


def test_the_house_draw_tables_take_the_draw_rules_buy_in_of_1_to_50_antes() -> None:
    draw = get_profile("draw5-1")
    tables = [cfg for cfg in DEFAULT_TABLES if cfg.rules_version == "draw5-1"]
    assert len(tables) == 3
    for cfg in tables:
        assert (cfg.min_buy_in, cfg.max_buy_in) == (draw.min_buy_in_units * cfg.ante, draw.max_buy_in_units * cfg.ante)
        assert (draw.min_buy_in_units, draw.max_buy_in_units) == (1, 50)


def test_the_default_lobby_has_every_profile_and_structure_and_both_admissions() -> None:
    games = {
        (cfg.rules_version, resolve_structure(get_profile(cfg.rules_version), stakes_of(cfg))) for cfg in DEFAULT_TABLES
    }
    wanted = {(version, structure) for version, p in PROFILES.items() for structure in p.structures}
    assert wanted <= games, wanted - games
    assert ("draw5-1", Structure.POT_LIMIT) in wanted  # the profiles still list every draw structure
    admissions = [cfg.admission for cfg in DEFAULT_TABLES]
    assert Admission.HUMANS_ONLY in admissions and Admission.AGENTS_ONLY in admissions
    assert Admission.MIXED in admissions
    assert len({cfg.table_id for cfg in DEFAULT_TABLES}) == len(DEFAULT_TABLES)
    assert all(cfg.name for cfg in DEFAULT_TABLES)


@pytest.mark.parametrize("max_over_balance", [True, False])
async def test_join_without_buy_in_brings_the_largest_affordable_amount(stack, bus, max_over_balance) -> None:
    pid, owner = await player(bus)
    available = (await balance(bus, pid)).available
    hi = available * 2 if max_over_balance else available // 2
    t = await create_table(bus, min_buy_in=20, max_buy_in=hi)
    r = await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="human"))
    expected = min(hi, available)
    assert r.status == "seated" and r.buy_in == expected
    assert (await balance(bus, pid)).available == available - expected
    seat = next(s for s in (await cmd(bus, t, GetView())).view.seats if s.participant_id == pid)
    assert seat.stack == expected


async def test_join_below_the_minimum_is_insufficient_funds_naming_it_and_changes_nothing(stack, bus) -> None:
    pid, owner = await player(bus)
    available = (await balance(bus, pid)).available
    lo = (available // 2 + 1) * 2  # above the balance, a whole number of big blinds
    t = await create_table(bus, small_blind=1, big_blind=2, min_buy_in=lo, max_buy_in=lo * 5)
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="human"))
    assert e.value.code == "insufficient_funds"
    assert e.value.details == {"minBuyIn": lo, "available": available}
    assert str(lo) in e.value.message
    assert (await balance(bus, pid)).available == available
    assert (await cmd(bus, t, GetView())).view.seats == ()


async def test_balance_tables_report_no_buy_in(stack, bus) -> None:
    pid, owner = await player(bus)
    t = await create_table(bus, rules_version="ante-nl-1")
    r = await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="human"))
    assert r.status == "seated" and r.buy_in is None
