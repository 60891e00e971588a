"""Checking a tournament definition (docs/tournaments.md, Definitions): the field at fault and
a stable reason, or None. A level's forced bets are checked by the engine's own table-stakes
rule for the game, so a level is valid exactly when a table of that game could play it."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from felt_contracts.tournament import DefinitionReason, Level, TournamentDefinition
from felt_engine.errors import ConfigError
from felt_engine.profiles import TableStakes, get_profile, validate_stakes


class Problem(NamedTuple):
    field: str
    reason: DefinitionReason
    message: str


def check_definition(d: TournamentDefinition, now: datetime) -> Problem | None:
    """None when the definition is usable at `now`, else what is wrong with it first."""
    return _levels(d) or _seats_and_entrants(d) or _payouts(d) or _registration(d) or _start(d, now)


def _levels(d: TournamentDefinition) -> Problem | None:
    profile = get_profile(d.rules_version)
    if d.levels[0].is_break:
        return Problem("levels[0]", "no_play_level", "the first level is played, not a break")
    previous: Level | None = None
    for i, level in enumerate(d.levels):
        at = f"levels[{i}]"
        if level.is_break:
            if level.small_blind or level.big_blind or level.ante:
                return Problem(at, "bad_level", "a break has no blinds and no ante")
            continue
        if level.ante_mode != "each" and level.ante <= 0:
            return Problem(f"{at}.ante", "bad_level", "a big-blind ante needs a positive ante")
        stakes = TableStakes(
            level.small_blind, level.big_blind, level.ante, level.big_blind, level.big_blind, ante_mode=level.ante_mode
        )
        try:
            validate_stakes(profile, stakes)
        except ConfigError as exc:
            return Problem(at, "bad_level", str(exc))
        if previous is not None:
            for name in ("small_blind", "big_blind", "ante"):
                if getattr(level, name) < getattr(previous, name):
                    return Problem(f"{at}.{name}", "levels_out_of_order", f"{name} goes down from the level before")
        previous = level
    return None


def _seats_and_entrants(d: TournamentDefinition) -> Problem | None:
    profile = get_profile(d.rules_version)
    if not profile.min_seats <= d.seats_per_table <= profile.max_seats:
        return Problem(
            "seats_per_table",
            "seats_outside_profile",
            f"{d.rules_version} seats {profile.min_seats}..{profile.max_seats} per table",
        )
    if d.min_entrants > d.max_entrants:
        return Problem("min_entrants", "entrants_out_of_order", "min_entrants is above max_entrants")
    fixed = profile.fixed_turn_seconds
    if fixed is not None and d.turn_seconds is not None and d.turn_seconds != fixed:
        return Problem("turn_seconds", "turn_clock_fixed", f"{d.rules_version} fixes the turn clock at {fixed} s")
    return None


def _payouts(d: TournamentDefinition) -> Problem | None:
    for i, tier in enumerate(d.payouts):
        at = f"payouts[{i}]"
        if i and tier.min_entrants <= d.payouts[i - 1].min_entrants:
            return Problem(f"{at}.min_entrants", "payouts_out_of_order", "tiers go up by min_entrants")
        if sum(tier.percents) != 100:
            return Problem(f"{at}.percents", "payouts_not_100", f"the percents sum to {sum(tier.percents)}, not 100")
        if any(b > a for a, b in zip(tier.percents, tier.percents[1:])):
            return Problem(f"{at}.percents", "payouts_out_of_order", "a place never pays more than a better one")
        if len(tier.percents) > tier.min_entrants:
            return Problem(f"{at}.percents", "too_many_places", "more places paid than entries")
    if d.payouts[0].min_entrants > d.min_entrants:
        return Problem(
            "payouts[0].min_entrants", "payouts_uncovered", "no payout tier for the smallest field (min_entrants)"
        )
    return None


def _registration(d: TournamentDefinition) -> Problem | None:
    if d.late_registration_level > len(d.levels):
        return Problem("late_registration_level", "late_registration_past_levels", "there are fewer levels")
    if d.re_entries and not d.late_registration_level:
        return Problem("re_entries", "re_entry_without_late_registration", "re-entry needs late registration")
    return None


def _start(d: TournamentDefinition, now: datetime) -> Problem | None:
    if d.starts_at is None:
        return None
    if d.starts_at.utcoffset() is None:
        return Problem("starts_at", "starts_at_without_offset", "starts_at needs a UTC offset")
    if d.starts_at <= now:
        return Problem("starts_at", "starts_in_past", "starts_at has passed")
    return None
