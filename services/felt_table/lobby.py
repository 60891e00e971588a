"""Table configurations: the default lobby, a JSON file option, and checking a config."""

from __future__ import annotations

import json
import re
from pathlib import Path

from felt_contracts.table import Admission, StartMode, TableConfig
from felt_engine.errors import ConfigError
from felt_engine.profiles import Structure, TableStakes, get_profile, validate_stakes

TABLE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: profiles whose rule texts fix the turn clock at 30 s (seeds 000, 004): no time bank there
FIXED_TURN_CLOCK = frozenset({"nlhe-1", "ante-nl-1"})

DEFAULT_TABLES = [
    TableConfig(table_id="nlhe-1-a", name="No-limit hold'em 10/20", rules_version="nlhe-1", small_blind=10,
                big_blind=20, min_buy_in=400, max_buy_in=2000, seats=9, admission=Admission.MIXED,
                start_mode=StartMode.EXPLICIT),
    TableConfig(table_id="ante-nl-1-a", name="Ante no-limit (10)", rules_version="ante-nl-1", ante=10, seats=10,
                admission=Admission.MIXED, start_mode=StartMode.AUTO),
    TableConfig(table_id="draw5-1-a", name="Five-card draw NL, ante 10", rules_version="draw5-1", ante=10,
                min_buy_in=10, max_buy_in=500, seats=6, admission=Admission.MIXED,
                start_mode=StartMode.EXPLICIT, auto_rebuy=True),
]


def stakes_of(cfg: TableConfig) -> TableStakes:
    return TableStakes(cfg.small_blind, cfg.big_blind, cfg.ante, cfg.min_buy_in, cfg.max_buy_in,
                       Structure(cfg.structure) if cfg.structure else None)


def check_config(cfg: TableConfig) -> str | None:
    """None when the config is usable, else what is wrong."""
    if not TABLE_ID.match(cfg.table_id):
        return "table_id must match [a-z0-9][a-z0-9_-]{0,63}"
    try:
        profile = get_profile(cfg.rules_version)
        validate_stakes(profile, stakes_of(cfg))
    except (ConfigError, ValueError) as exc:
        return str(exc)
    if not profile.min_seats <= cfg.seats <= min(profile.max_seats, 10):
        return f"seats must be {profile.min_seats}..{profile.max_seats}"
    for name in ("turn_seconds", "intermission_seconds"):
        v = getattr(cfg, name)
        if v is not None and not 0 < v <= 3600:
            return f"{name} must be in (0, 3600]"
    if cfg.auto_rebuy and profile.money != "buy_in":
        return "auto_rebuy needs a buy-in table"
    if cfg.time_bank is not None and cfg.rules_version in FIXED_TURN_CLOCK:
        return f"time_bank is not allowed for {cfg.rules_version}: its rules fix the turn clock at 30 s"
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
            raise ValueError(f"table {cfg.table_id}: {problem}")
    return list(tables.values())
