"""Table settings (`FELT_TABLE_` prefix). Durations are settings so tests can use short ones."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class TableSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_TABLE_", extra="ignore")

    turn_seconds: float = Field(default=30.0, gt=0, le=3600)
    grace_seconds: float = Field(default=10.0, gt=0, le=3600)  # disconnect grace
    intermission_seconds: float = Field(default=30.0, gt=0, le=3600)  # auto-start tables
    default_tables: bool = True  # create the default lobby (lobby.DEFAULT_TABLES: every profile, fits the grant)
    tables_file: str = ""  # JSON list of TableConfig objects (added to / replacing defaults by id)
    limits: bool = True  # ask the limits service before new risk (unavailable = deny)
    timer_owner: str = "table"  # our owner name at the timer service
    call_timeout: float = Field(default=5.0, gt=0)
