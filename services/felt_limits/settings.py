"""Limits settings (`FELT_LIMITS_` prefix). Generous default caps; `none` (or empty) = no cap."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from felt_contracts.limits import MAX_AMOUNT, LimitName


class LimitsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_LIMITS_", extra="ignore")

    #: Default owner caps (a participant has caps only where one is set).
    default_daily_buy_in: int | None = Field(default=100_000, ge=0, le=MAX_AMOUNT)
    default_daily_wager: int | None = Field(default=1_000_000, ge=0, le=MAX_AMOUNT)
    default_reserved_exposure: int | None = Field(default=50_000, ge=0, le=MAX_AMOUNT)
    default_session_hands: int | None = Field(default=1_000, ge=0, le=MAX_AMOUNT)
    default_session_wager: int | None = Field(default=500_000, ge=0, le=MAX_AMOUNT)
    #: How long a raised cap waits before it applies (lowering applies at once).
    raise_cooloff_seconds: float = Field(default=24 * 3600, ge=0)
    #: The durable JetStream consumer name on the wallet's transfer stream.
    consumer: str = "felt-limits"
    #: Unacknowledged events (e.g. pulled by a replica that crashed) are redelivered after this.
    ack_wait_seconds: float = Field(default=10.0, gt=0)
    #: an allowed buy-in or wager counts against the caps this long at most before the wallet's
    #: transfer event is counted (holds.py)
    hold_seconds: float = Field(default=10.0, gt=0)
    #: a hand's allowance (start_hand with a stack) counts against the wager caps until the hand's
    #: settlement is counted, or this long at most (a hand whose table died is never settled)
    hand_hold_seconds: float = Field(default=600.0, gt=0)
    #: Where a new durable consumer starts: `all` (production) or `new`.
    deliver_policy: str = "all"
    #: Tests only: read "now" from this file (ISO datetime) instead of the system clock.
    clock_file: Path | None = None

    @field_validator(
        "default_daily_buy_in",
        "default_daily_wager",
        "default_reserved_exposure",
        "default_session_hands",
        "default_session_wager",
        mode="before",
    )
    @classmethod
    def _none(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in {"", "none", "null"}:
            return None
        return value

    @field_validator("deliver_policy")
    @classmethod
    def _policy(cls, value: str) -> str:
        if value not in {"all", "new"}:
            raise ValueError("must be all or new")
        return value

    def defaults(self) -> dict[LimitName, int | None]:
        return {
            LimitName.DAILY_BUY_IN: self.default_daily_buy_in,
            LimitName.DAILY_WAGER: self.default_daily_wager,
            LimitName.RESERVED_EXPOSURE: self.default_reserved_exposure,
            LimitName.SESSION_HANDS: self.default_session_hands,
            LimitName.SESSION_WAGER: self.default_session_wager,
        }
