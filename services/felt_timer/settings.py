"""Timer settings (`FELT_TIMER_` prefix); the shared ones (NATS, Redis URL) come from Settings."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class TimerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_TIMER_", extra="ignore")

    prefix: str = Field(default="felt:timer", min_length=1, max_length=100)  # Redis key prefix
    poll_seconds: float = Field(default=0.05, gt=0, le=5)  # how often due deadlines are claimed
    batch: int = Field(default=200, ge=1, le=10_000)  # deadlines claimed per poll
    lease_seconds: float = Field(default=10.0, gt=0, le=600)  # a claim not acknowledged by then is retried
    bank_ttl_seconds: int = Field(default=7 * 86_400, ge=60)  # an unused time bank is forgotten after this
    idempotency_ttl_seconds: int = Field(default=600, ge=1)  # how long a message_id's outcome is kept
