"""Tournament settings (`FELT_TOURNAMENT_` prefix)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class TournamentSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_TOURNAMENT_", extra="ignore")

    #: how long a call to the wallet or limits waits for its answer
    call_timeout_seconds: float = Field(default=5.0, gt=0)
    #: how often a step the wallet did not answer is sent again
    retry_seconds: float = Field(default=1.0, gt=0)
    #: how often a running tournament's table events are read (the level clock runs on the timer)
    play_poll_seconds: float = Field(default=0.5, gt=0)
    #: a recurring Sit & Go (recurring.py): its next copy opens whenever one fills
    recurring: bool = True
    #: its template, a `TournamentDefinition` as JSON (empty: the default six-seat Sit & Go)
    recurring_file: str = ""
