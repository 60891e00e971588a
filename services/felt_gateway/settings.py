"""Gateway settings (`FELT_GATEWAY_` prefix); the shared ones come from felt_runtime.settings."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class GatewaySettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_GATEWAY_", extra="ignore")

    token_ttl_seconds: float = Field(default=12 * 3600, gt=0)
    #: how long an authentication is trusted without reading the credential again; a revocation
    #: through any gateway reaches every gateway's cache at once, one made straight in the
    #: database takes effect within this (0: no cache)
    auth_cache_seconds: float = Field(default=60.0, ge=0, le=300)
    feed_linger_seconds: float = Field(
        default=30.0, ge=0
    )  # a table feed stays subscribed this long after its last listener
    #: events a table feed keeps in memory: each costs ~1 KB with its camelCase copies, so a
    #: gateway watching a table holds ~256 KB for it at the default (several hands: live readers
    #: are a few events behind); a reader further behind asks the table. Ten times that grows a
    #: busy gateway by gigabytes once every feed has filled
    feed_keep_events: int = Field(default=256, ge=16)
    login_attempts_per_email: int = Field(default=5, gt=0)  # failed logins of one email per window, then 429
    login_attempts_per_address: int = Field(default=100, gt=0)  # failed logins from one client address per window
    login_window_seconds: int = Field(default=900, gt=0)
    longpoll_max_seconds: float = Field(default=30.0, gt=0, le=120)
    ws_max_frame_bytes: int = Field(default=16 * 1024, gt=0)
    ws_credits: int = Field(default=50, gt=0)  # frames a connection may send per interval (lila-ws style)
    ws_credit_interval: float = Field(default=10.0, gt=0)
    ws_max_tables: int = Field(default=20, gt=0)  # tables one connection may subscribe to
    ws_auth_timeout: float = Field(default=10.0, gt=0)
    ws_idle_timeout: float = Field(default=60.0, gt=0)  # no frame at all (not even ping) for this long: close
    #: a burst of joins (a room opening, a reconnect storm) is queued here, at most this many at
    #: the tables at once, and each is waited for up to `join_timeout_seconds` (not refused with 503)
    join_slots: int = Field(default=32, gt=0)
    join_timeout_seconds: float = Field(default=60.0, gt=0)
