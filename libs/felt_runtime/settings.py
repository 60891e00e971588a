"""Service settings from the environment (`FELT_` prefix). Every default works on a laptop."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

#: Where `felt up` keeps its state (NATS store, Valkey, SQLite files, logs).
VAR_DIR = Path("var")

#: Default ports, chosen off the standard ones so a laptop's own NATS/Redis does not clash.
DEFAULT_NATS_PORT = 14222
DEFAULT_REDIS_PORT = 16379


class Settings(BaseSettings):
    """One settings model for all services; each reads only what it needs."""

    model_config = SettingsConfigDict(env_prefix="FELT_", extra="ignore")

    nats_url: str = f"nats://127.0.0.1:{DEFAULT_NATS_PORT}"
    redis_url: str = f"redis://127.0.0.1:{DEFAULT_REDIS_PORT}/0"
    database_url: str = ""  # empty: SQLite file var/<service>.sqlite
    http_host: str = "127.0.0.1"
    http_port: int = Field(default=0, ge=0, le=65535)  # 0: the service's default port
    log_level: str = "INFO"
    request_timeout: float = Field(default=5.0, gt=0)
    var_dir: Path = VAR_DIR
    port_offset: int = Field(default=0, ge=0, le=50000)  # shifts every default port (two rooms on one host)

    @field_validator("nats_url")
    @classmethod
    def _nats_scheme(cls, value: str) -> str:
        if not value.startswith(("nats://", "tls://")):
            raise ValueError("must start with nats:// or tls://")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: str) -> str:
        if not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        if value:
            try:
                url = make_url(value)
            except ArgumentError as exc:
                raise ValueError(f"not a database URL ({exc})") from None
            if url.get_backend_name() not in {"sqlite", "postgresql"}:
                raise ValueError("only sqlite and postgresql are supported")
        return value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        value = value.upper()
        if value not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ValueError("must be DEBUG, INFO, WARNING or ERROR")
        return value

    def default_port(self, base: int) -> int:
        return base + self.port_offset

    def database_url_for(self, service: str) -> str:
        """The configured URL, or the service's own SQLite file under `var/`."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.var_dir / f'{service}.sqlite').resolve()}"
