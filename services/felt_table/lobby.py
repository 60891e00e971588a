"""Table configurations: the default lobby, a JSON file option, and checking a config."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from felt_contracts.table import Admission, StartMode, TableConfig
from felt_engine.errors import ConfigError
from felt_engine.profiles import Structure, TableStakes, get_profile, validate_stakes

TABLE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: profiles whose rule texts fix the turn clock at 30 s (seeds 000, 004): no time bank there
FIXED_TURN_CLOCK = frozenset({"nlhe-1", "ante-nl-1"})

#: blind tables: 1/2 with a buy-in of 20..100 big blinds; draw: ante 4 with 10..50 antes (seed 002)
_BLINDS = dict(small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=200)
_DRAW = dict(rules_version="draw5-1", ante=4, min_buy_in=40, max_buy_in=200, seats=6)

#: The lobby a fresh account (the wallet's starting grant, 200 chips) can play in: every profile
#: and every draw structure at stakes that grant covers, plus a people-only and an agents-only
#: table beside the mixed ones (tests/table/test_lobby.py checks this against the grant).
DEFAULT_TABLES = [
    TableConfig(table_id="nlhe-1-a", name="No-limit hold'em 1/2", rules_version="nlhe-1", seats=9, **_BLINDS),
    TableConfig(table_id="nlhe-1-people", name="No-limit hold'em 1/2 · people only", rules_version="nlhe-1",
                seats=6, admission=Admission.HUMANS_ONLY, start_mode=StartMode.AUTO, intermission_seconds=10,
                **_BLINDS),
    TableConfig(table_id="nlhe-1-agents", name="No-limit hold'em 1/2 · agents only", rules_version="nlhe-1",
                seats=6, admission=Admission.AGENTS_ONLY, **_BLINDS),
    TableConfig(table_id="plhe-1-a", name="Pot-limit hold'em 1/2", rules_version="plhe-1", seats=6, **_BLINDS),
    TableConfig(table_id="flhe-1-a", name="Fixed-limit hold'em 1/2 (bets 2/4)", rules_version="flhe-1", seats=6, **_BLINDS),
    TableConfig(table_id="ante-nl-1-a", name="Ante no-limit hold'em, ante 10", rules_version="ante-nl-1", ante=10,
                seats=10, start_mode=StartMode.AUTO),
    TableConfig(table_id="draw5-1-a", name="Five-card draw no-limit, ante 4", auto_rebuy=True, **_DRAW),
    TableConfig(table_id="draw5-1-pl", name="Five-card draw pot-limit, ante 4", structure="pot-limit",
                auto_rebuy=True, **_DRAW),
    TableConfig(table_id="draw5-1-fl", name="Five-card draw fixed-limit, ante 4", structure="fixed-limit", **_DRAW),
]


def stakes_of(cfg: TableConfig) -> TableStakes:
    return TableStakes(cfg.small_blind, cfg.big_blind, cfg.ante, cfg.min_buy_in, cfg.max_buy_in,
                       Structure(cfg.structure) if cfg.structure else None)


class Problem(NamedTuple):
    """What is wrong with a table configuration: the field at fault and why."""

    field: str
    message: str


def check_config(cfg: TableConfig) -> Problem | None:
    """None when the config is usable, else the field at fault and what is wrong."""
    if not TABLE_ID.match(cfg.table_id):
        return Problem("table_id", "table_id must match [a-z0-9][a-z0-9_-]{0,63}")
    try:
        profile = get_profile(cfg.rules_version)
    except (ConfigError, ValueError) as exc:
        return Problem("rules_version", str(exc))
    try:
        validate_stakes(profile, stakes_of(cfg))
    except (ConfigError, ValueError) as exc:
        return Problem("stakes", f"stakes (blinds, ante, buy-in range, structure): {exc}")
    if not profile.min_seats <= cfg.seats <= min(profile.max_seats, 10):
        return Problem("seats", f"seats must be {profile.min_seats}..{profile.max_seats}")
    for name in ("turn_seconds", "intermission_seconds"):
        v = getattr(cfg, name)
        if v is not None and not 0 < v <= 3600:
            return Problem(name, f"{name} must be in (0, 3600]")
    if cfg.auto_rebuy and profile.money != "buy_in":
        return Problem("auto_rebuy", "auto_rebuy needs a buy-in table")
    if cfg.closes_at is not None and cfg.closes_at.utcoffset() is None:
        return Problem("closes_at", "closes_at needs a UTC offset (e.g. 2026-12-01T18:00:00Z)")
    if cfg.time_bank is not None and cfg.rules_version in FIXED_TURN_CLOCK:
        return Problem("time_bank", f"time_bank is not allowed for {cfg.rules_version}: its rules fix the turn clock at 30 s")
    return None


def load_tables(default: bool, path: str) -> list[TableConfig]:
    tables = {t.table_id: t for t in (DEFAULT_TABLES if default else [])}
    if path:
        for raw in json.loads(Path(path).read_text()):
            cfg = TableConfig.model_validate(raw)
            tables[cfg.table_id] = cfg
    for cfg in tables.values():
        problem = check_config(cfg)
        if problem:
            raise ValueError(f"table {cfg.table_id}: {problem.message}")
    return list(tables.values())
