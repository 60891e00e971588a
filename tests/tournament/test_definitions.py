"""Tournament definitions: a malformed one is refused with the field at fault and a stable
reason, and nothing is created (docs/tournaments.md, Definitions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.tournament import (
    CreateTournament,
    GetTournament,
    Level,
    ListTournaments,
    PayoutTier,
    TournamentList,
    TournamentView,
)
from felt_runtime.bus import call
from felt_tournament.definitions import check_definition
from tests.support.waiting import refused
from tests.tournament.conftest import definition

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
L = Level(small_blind=10, big_blind=20, duration_seconds=300)

BAD: dict[str, tuple[dict[str, Any], str, str]] = {
    "blinds go down": (
        {"levels": [Level(small_blind=20, big_blind=40, duration_seconds=60), L]},
        "levels[1].small_blind",
        "levels_out_of_order",
    ),
    "ante goes down": (
        {"levels": [Level(small_blind=10, big_blind=20, ante=5, duration_seconds=60), L]},
        "levels[1].ante",
        "levels_out_of_order",
    ),
    "small blind above big": (
        {"levels": [Level(small_blind=30, big_blind=20, duration_seconds=60)]},
        "levels[0]",
        "bad_level",
    ),
    "no blinds": ({"levels": [Level(duration_seconds=60)]}, "levels[0]", "bad_level"),
    "break with blinds": (
        {"levels": [L, Level(small_blind=1, big_blind=2, duration_seconds=60, is_break=True)]},
        "levels[1]",
        "bad_level",
    ),
    "starts with a break": ({"levels": [Level(duration_seconds=60, is_break=True), L]}, "levels[0]", "no_play_level"),
    "big-blind ante of 0": (
        {"levels": [Level(small_blind=1, big_blind=2, ante_mode="big_blind", duration_seconds=60)]},
        "levels[0].ante",
        "bad_level",
    ),
    "one seat": ({"seats_per_table": 1}, "seats_per_table", "seats_outside_profile"),
    "ten seats": ({"seats_per_table": 10}, "seats_per_table", "seats_outside_profile"),
    "turn clock of nlhe-1": ({"turn_seconds": 5.0}, "turn_seconds", "turn_clock_fixed"),
    "min above max": ({"min_entrants": 7, "max_entrants": 6}, "min_entrants", "entrants_out_of_order"),
    "payouts 90%": (
        {"payouts": [PayoutTier(min_entrants=2, percents=[Decimal(60), Decimal(30)])]},
        "payouts[0].percents",
        "payouts_not_100",
    ),
    "payouts 101%": (
        {"payouts": [PayoutTier(min_entrants=2, percents=[Decimal("70.5"), Decimal("30.5")])]},
        "payouts[0].percents",
        "payouts_not_100",
    ),
    "second pays more": (
        {"payouts": [PayoutTier(min_entrants=2, percents=[Decimal(40), Decimal(60)])]},
        "payouts[0].percents",
        "payouts_out_of_order",
    ),
    "tiers out of order": (
        {
            "payouts": [
                PayoutTier(min_entrants=4, percents=[Decimal(100)]),
                PayoutTier(min_entrants=2, percents=[Decimal(100)]),
            ]
        },
        "payouts[1].min_entrants",
        "payouts_out_of_order",
    ),
    "more places than entries": (
        {"payouts": [PayoutTier(min_entrants=2, percents=[Decimal(50), Decimal(30), Decimal(20)])]},
        "payouts[0].percents",
        "too_many_places",
    ),
    "smallest field unpaid": (
        {"payouts": [PayoutTier(min_entrants=3, percents=[Decimal(100)])]},
        "payouts[0].min_entrants",
        "payouts_uncovered",
    ),
    "late registration past the levels": (
        {"late_registration_level": 5},
        "late_registration_level",
        "late_registration_past_levels",
    ),
    "re-entry without late registration": ({"re_entries": 1}, "re_entries", "re_entry_without_late_registration"),
    "start in the past": ({"starts_at": NOW - timedelta(minutes=1)}, "starts_at", "starts_in_past"),
    "start without offset": ({"starts_at": datetime(2027, 1, 1, 18, 0)}, "starts_at", "starts_at_without_offset"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_malformed_definition_names_its_field_and_reason(case: str) -> None:
    over, field, reason = BAD[case]
    problem = check_definition(definition(**over), NOW)
    assert problem is not None and (problem.field, problem.reason) == (field, reason), problem


@pytest.mark.parametrize("game", ["nlhe-1", "plhe-1", "flhe-1"])
def test_the_blind_holdem_games_are_valid_with_breaks_antes_and_late_registration(game: str) -> None:
    d = definition(rules_version=game, late_registration_level=4, re_entries=2, starts_at=NOW + timedelta(hours=1))
    assert check_definition(d, NOW) is None
    assert check_definition(definition(buy_in=0, seats_per_table=2, max_entrants=2), NOW) is None  # a heads-up freeroll


async def test_the_service_refuses_a_malformed_definition_and_creates_nothing(bus) -> None:
    before = await call(bus, subjects.TOURNAMENT_LIST, ListTournaments(), TournamentList)
    bad = definition(payouts=[PayoutTier(min_entrants=2, percents=[Decimal(60), Decimal(30)])])
    err = await refused(
        call(bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=bad), TournamentView), ErrorCode.MALFORMED
    )
    assert err.details == {"field": "payouts[0].percents", "reason": "payouts_not_100"}
    await refused(
        call(bus, subjects.TOURNAMENT_GET, GetTournament(tournament_id=bad.tournament_id), TournamentView),
        ErrorCode.NOT_FOUND,
    )
    assert await call(bus, subjects.TOURNAMENT_LIST, ListTournaments(), TournamentList) == before


async def test_creating_again_returns_the_tournament_and_another_definition_is_a_conflict(bus) -> None:
    d = definition()
    first = await call(bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=d), TournamentView)
    assert first.status == "registering" and first.entrants == 0 and first.prize_pool == 0
    assert await call(bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=d), TournamentView) == first
    other = d.model_copy(update={"buy_in": 10})
    err = await refused(
        call(bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=other), TournamentView), ErrorCode.CONFLICT
    )
    assert err.details["field"] == "tournament_id"
