"""Table configurations: the default lobby, a JSON file option, and checking a config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple, TypedDict

from felt_contracts.table import TABLE_ID_PATTERN, Admission, StartMode, TableConfig, is_table_id
from felt_engine.errors import ConfigError
from felt_engine.profiles import RulesProfile, Structure, TableStakes, get_profile, validate_stakes


class _Blinds(TypedDict):
    small_blind: int
    big_blind: int
    min_buy_in: int
    max_buy_in: int


class _Draw(TypedDict):
    rules_version: str
    ante: int
    min_buy_in: int
    max_buy_in: int
    seats: int


#: blind tables: 1/2 with a buy-in of 20..100 big blinds; draw: ante 4 with the five-card draw
#: rules' buy-in, 1..50 antes
_BLINDS = _Blinds(small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=200)
_DRAW = _Draw(rules_version="draw5-1", ante=4, min_buy_in=4, max_buy_in=200, seats=6)

#: The lobby a fresh account (the wallet's starting grant, 200 chips) can play in: every profile
#: and every draw structure at stakes that grant covers, plus a people-only and an agents-only
#: table beside the mixed ones (tests/table/test_lobby.py checks this against the grant).
DEFAULT_TABLES = [
    TableConfig(table_id="nlhe-1-a", name="No-limit hold'em 1/2", rules_version="nlhe-1", seats=9, **_BLINDS),
    TableConfig(
        table_id="nlhe-1-people",
        name="No-limit hold'em 1/2 · people only",
        rules_version="nlhe-1",
        seats=6,
        admission=Admission.HUMANS_ONLY,
        start_mode=StartMode.AUTO,
        intermission_seconds=10,
        **_BLINDS,
    ),
    TableConfig(
        table_id="nlhe-1-agents",
        name="No-limit hold'em 1/2 · agents only",
        rules_version="nlhe-1",
        seats=6,
        admission=Admission.AGENTS_ONLY,
        **_BLINDS,
    ),
    TableConfig(table_id="plhe-1-a", name="Pot-limit hold'em 1/2", rules_version="plhe-1", seats=6, **_BLINDS),
    TableConfig(
        table_id="flhe-1-a", name="Fixed-limit hold'em 1/2 (bets 2/4)", rules_version="flhe-1", seats=6, **_BLINDS
    ),
    TableConfig(
        table_id="ante-nl-1-a",
        name="Ante no-limit hold'em, ante 10",
        rules_version="ante-nl-1",
        ante=10,
        seats=10,
        start_mode=StartMode.AUTO,
    ),
    TableConfig(table_id="draw5-1-a", name="Five-card draw no-limit, ante 4", auto_rebuy=True, **_DRAW),
    TableConfig(
        table_id="draw5-1-pl", name="Five-card draw pot-limit, ante 4", structure="pot-limit", auto_rebuy=True, **_DRAW
    ),
    TableConfig(table_id="draw5-1-fl", name="Five-card draw fixed-limit, ante 4", structure="fixed-limit", **_DRAW),
]


def stakes_of(cfg: TableConfig) -> TableStakes:
    return TableStakes(
        cfg.small_blind,
        cfg.big_blind,
        cfg.ante,
        cfg.min_buy_in,
        cfg.max_buy_in,
        Structure(cfg.structure) if cfg.structure else None,
        ante_mode=cfg.ante_mode,
        straddle=2 * cfg.big_blind if cfg.straddle else 0,
    )


class Problem(NamedTuple):
    """What is wrong with a table configuration: the field at fault and why."""

    field: str
    message: str


def check_config(cfg: TableConfig) -> Problem | None:
    """None when the config is usable, else the field at fault and what is wrong."""
    if not is_table_id(cfg.table_id):
        return Problem("table_id", f"table_id must match {TABLE_ID_PATTERN[1:-1]}")
    try:
        profile = get_profile(cfg.rules_version)
    except (ConfigError, ValueError) as exc:
        return Problem("rules_version", str(exc))
    problem = _forced_bets_problem(cfg, profile)
    if problem:
        return problem
    try:
        validate_stakes(profile, stakes_of(cfg))
    except ConfigError as exc:
        field = exc.field or ("structure" if exc.code == "bad_structure" else "stakes")
        return Problem(field, f"stakes (blinds, ante, buy-in range, structure): {exc.message}")
    if not profile.min_seats <= cfg.seats <= min(profile.max_seats, 10):
        return Problem("seats", f"seats must be {profile.min_seats}..{profile.max_seats}")
    for name in ("turn_seconds", "intermission_seconds"):
        value = getattr(cfg, name)
        if value is not None and not 0 < value <= 3600:
            return Problem(name, f"{name} must be in (0, 3600]")
    fixed = profile.fixed_turn_seconds
    if fixed is not None and cfg.turn_seconds is not None and cfg.turn_seconds != fixed and cfg.host_id is not None:
        return Problem("turn_seconds", f"{cfg.rules_version} fixes the turn clock at {fixed} s")
    if cfg.auto_rebuy and profile.money != "buy_in":
        return Problem("auto_rebuy", "auto_rebuy needs a buy-in table")
    if cfg.closes_at is not None and cfg.closes_at.utcoffset() is None:
        return Problem("closes_at", "closes_at needs a UTC offset (e.g. 2026-12-01T18:00:00Z)")
    if cfg.match is not None and (cfg.seats != 2 or profile.game != "holdem" or profile.money != "buy_in"):
        return Problem("match", "a match table is a heads-up hold'em table with buy-ins")
    if cfg.time_bank is not None and profile.fixed_turn_seconds is not None:
        return Problem(
            "time_bank",
            f"time_bank is not allowed for {cfg.rules_version}: "
            f"its rules fix the turn clock at {profile.fixed_turn_seconds} s",
        )
    return None


def rescale_buy_in(old: TableConfig, new: TableConfig) -> TableConfig:
    """`new` stakes with the buy-in range of `old` kept in the same number of big blinds (antes
    where the ante is the unit), so a host's change of blinds keeps the table's depth."""
    profile = get_profile(new.rules_version)
    before, after = (old.big_blind, new.big_blind) if profile.buy_in_unit == "big_blind" else (old.ante, new.ante)
    if profile.money != "buy_in" or new.min_buy_in is None or new.max_buy_in is None or before <= 0 or after <= 0:
        return new
    return new.model_copy(
        update={
            "min_buy_in": max(1, new.min_buy_in * after // before),
            "max_buy_in": max(1, new.max_buy_in * after // before),
        }
    )


def _forced_bets_problem(cfg: TableConfig, profile: RulesProfile) -> Problem | None:
    """A table ante or a straddle the profile does not allow (checked before the stakes, so
    the error names the option rather than "stakes")."""
    if cfg.ante_mode != "each":
        if cfg.ante_mode not in profile.ante_modes:
            return Problem(
                "ante_mode",
                f"ante_mode {cfg.ante_mode!r} is not allowed for {cfg.rules_version} "
                f"(allowed: {', '.join(profile.ante_modes)})",
            )
        if cfg.ante <= 0:
            return Problem("ante_mode", f"ante_mode {cfg.ante_mode!r} needs a positive ante")
    if cfg.straddle and not profile.straddle:
        return Problem("straddle", f"{cfg.rules_version} has no straddle")
    return None


def load_tables(default: bool, path: str) -> list[TableConfig]:
    tables = {config.table_id: config for config in (DEFAULT_TABLES if default else [])}
    if path:
        for raw in json.loads(Path(path).read_text()):
            cfg = TableConfig.model_validate(raw)
            tables[cfg.table_id] = cfg
    for cfg in tables.values():
        problem = check_config(cfg)
        if problem:
            raise ValueError(f"table {cfg.table_id}: {problem.message}")
    return list(tables.values())
