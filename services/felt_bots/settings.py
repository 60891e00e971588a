"""Bots settings. `FELT_BOTS` is how many bots `felt up` seats (0 turns them off); the rest
have the `FELT_BOTS_` prefix."""

from __future__ import annotations

from typing import get_args

from pydantic import AliasChoices, Field, TypeAdapter, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from felt_contracts.bots import Level

LEVEL_NAMES: tuple[str, ...] = get_args(Level)
_LEVELS = TypeAdapter(list[Level])


class BotsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_BOTS_", extra="ignore")

    count: int = Field(default=6, ge=0, le=200, validation_alias=AliasChoices("FELT_BOTS", "FELT_BOTS_COUNT"))
    levels: str = "easy,normal,hard"  # cycled over the bots
    tables: str = ""  # comma-separated table ids; empty: tables of the lobby that admit agents and a bot can afford
    per_table: int = Field(default=2, ge=1, le=9)  # bots per table when the tables are chosen from the lobby
    gateway_url: str = ""  # empty: the gateway of this room (127.0.0.1, its default port + FELT_PORT_OFFSET)
    think_seconds: float = Field(default=0.6, ge=0, le=10)  # pause before acting, so people can follow
    pause_seconds: float = Field(default=2.0, ge=0, le=60)  # between hands at explicit-start tables
    broke_recheck_seconds: float = Field(default=30.0, gt=0, le=3600)  # a broke bot looks at its balance again
    email_domain: str = "bots.felt.local"  # owners are bot<N>@<domain>
    fill_tournaments: str = "sng-six-"  # comma-separated tournament id prefixes bots fill (empty: none)
    fill_seconds: float = Field(default=60.0, ge=0, le=24 * 3600)  # how long a Sit & Go waits before bots fill it
    match_hold_seconds: float = Field(default=120.0, gt=0, le=3600)  # a match's bot held for the gateway's next step

    @field_validator("levels")
    @classmethod
    def _levels(cls, value: str) -> str:
        names = [v.strip() for v in value.split(",") if v.strip()]
        bad = [n for n in names if n not in LEVEL_NAMES]
        if not names or bad:
            raise ValueError(f"levels must be a comma-separated list of {', '.join(LEVEL_NAMES)}")
        return ",".join(names)

    def level_list(self) -> list[Level]:
        return _LEVELS.validate_python(self.levels.split(","))

    def fill_list(self) -> list[str]:
        return [t.strip() for t in self.fill_tournaments.split(",") if t.strip()]

    def table_list(self) -> list[str]:
        return [t.strip() for t in self.tables.split(",") if t.strip()]
