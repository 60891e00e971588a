"""Chat settings (`FELT_CHAT_` prefix); the shared ones (NATS, Redis URL) come from Settings."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ChatSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_CHAT_", extra="ignore")

    prefix: str = Field(default="felt:chat", min_length=1, max_length=100)  # Redis key prefix
    max_messages: int = Field(default=5, ge=1, le=10_000)  # messages per participant per window
    window_seconds: float = Field(default=10.0, gt=0, le=86_400)  # the sliding throttle window
    history_size: int = Field(default=100, ge=1, le=10_000)  # messages kept per table
    idempotency_ttl_seconds: int = Field(default=3600, ge=1)  # how long a post's message_id is remembered
    #: the durable JetStream consumer that follows every table's seat events (membership)
    consumer: str = Field(default="felt-chat-seats", min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")
