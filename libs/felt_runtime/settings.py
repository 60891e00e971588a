"""Service settings from the environment (`FELT_` prefix). Every default works on a laptop."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

#: Where `felt up` keeps its state (NATS store, Valkey, SQLite files, logs).
VAR_DIR = Path("var")

#: Default ports, chosen off the standard ones so a laptop's own NATS/Redis does not clash.
DEFAULT_NATS_PORT = 14222
DEFAULT_REDIS_PORT = 16379

#: The async driver installed for each database (see pyproject): plain URLs get it.
ASYNC_DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}


class Settings(BaseSettings):
    """One settings model for all services; each reads only what it needs."""

    model_config = SettingsConfigDict(env_prefix="FELT_", extra="ignore")

    nats_url: str = f"nats://127.0.0.1:{DEFAULT_NATS_PORT}"
    # this process's NATS identity (felt_contracts.access; docs/operations.md "Who may say what on
    # the bus"): empty takes the password `felt up` generated under var/nats/, if any
    nats_user: str = ""
    nats_password: SecretStr = SecretStr("")
    # TLS to NATS (a `tls://` URL, or any of these set): the CA that signed the server's
    # certificate, and this client's own certificate and key where the server asks for one
    nats_tls_ca_file: str = ""
    nats_tls_cert_file: str = ""
    nats_tls_key_file: str = ""
    redis_url: str = f"redis://127.0.0.1:{DEFAULT_REDIS_PORT}/0"
    database_url: str = ""  # empty: SQLite file var/<service>.sqlite
    http_host: str = "127.0.0.1"
    http_port: int = Field(default=0, ge=0, le=65535)  # 0: the service's default port
    # how long an idle HTTP connection stays open: longer than clients keep one in their pools
    # (httpx 5 s, aiohttp 15 s, a load balancer's 60 s); at uvicorn's own 5 s a client's request
    # sent on a pooled connection as the server closed it met a reset
    http_keep_alive_seconds: int = Field(default=75, ge=1, le=3600)
    # per-message deflate on WebSockets (the gateway's): off, because a frame is ~500 bytes of
    # JSON (well under a KB/s per seated player) while the compressor keeps a context per socket
    # (half the gateway's memory per socket) and costs CPU per frame (docs/benchmarks.md, "Gateway")
    http_ws_compression: bool = False
    # the process's CPU priority (Unix nice, applied at start): on one host, the services mostly off
    # the action's path give way to those on it when the cores are busy (`catalog.NICE`, `felt up`)
    nice: int = Field(default=0, ge=0, le=19)
    # one full garbage collection every so many seconds, the automatic collector off
    # (felt_runtime.collector: its young collections stop a busy gateway's loop a few times a
    # minute); 0 keeps the automatic collector
    gc_full_seconds: float = Field(default=300.0, ge=0, le=86400)
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
        """The form operators write (`postgresql://`, `postgres://`, `sqlite:///`) gets the
        installed async driver; another driver is refused in one line saying what to write.
        libpq's `sslmode=` (e.g. `verify-full`: TLS, the server's certificate and host name
        verified) becomes asyncpg's `ssl=` with the same mode."""
        if not value:
            return value
        if value.startswith("postgres://"):
            value = "postgresql://" + value.removeprefix("postgres://")
        try:
            url = make_url(value)
        except ArgumentError as exc:
            raise ValueError(f"not a database URL ({exc})") from None
        backend = url.get_backend_name()
        if backend not in ASYNC_DRIVERS:
            raise ValueError("only sqlite and postgresql are supported")
        driver = ASYNC_DRIVERS[backend]
        if url.drivername != backend and url.get_driver_name() != driver:
            raise ValueError(
                f"the {url.get_driver_name()} driver is not installed: write {backend}://… or {backend}+{driver}://…"
            )
        if backend == "postgresql" and "sslmode" in url.query:
            url = url.difference_update_query(["sslmode"]).update_query_dict({"ssl": url.query["sslmode"]})
        return url.set(drivername=f"{backend}+{driver}").render_as_string(hide_password=False)

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        value = value.upper()
        if value not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ValueError("must be DEBUG, INFO, WARNING or ERROR")
        return value

    @model_validator(mode="after")
    def _shift_default_urls(self) -> Settings:
        """`FELT_PORT_OFFSET` moves the default NATS and Valkey ports too (not ones set explicitly),
        so a service started on its own (`felt service NAME`) finds its room's servers."""
        if "nats_url" not in self.model_fields_set:
            self.nats_url = f"nats://127.0.0.1:{self.default_port(DEFAULT_NATS_PORT)}"
        if "redis_url" not in self.model_fields_set:
            self.redis_url = f"redis://127.0.0.1:{self.default_port(DEFAULT_REDIS_PORT)}/0"
        return self

    def default_port(self, base: int) -> int:
        return base + self.port_offset

    def database_url_for(self, service: str) -> str:
        """The configured URL, or the service's own SQLite file under `var/`."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.var_dir / f'{service}.sqlite').resolve()}"
