"""SQLAlchemy async engine helpers and Alembic migrations, for SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from alembic import command
from alembic.config import Config
import sqlalchemy as sa
from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

log = logging.getLogger("felt.db")
P = ParamSpec("P")
T = TypeVar("T")


def sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: object) -> None:
    """A SQLAlchemy "connect" listener: the pragmas every SQLite connection of Felt gets (WAL,
    foreign keys, synchronous=NORMAL), so that several processes can share one file."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def sqlite_sync_engine(engine: AsyncEngine, *, timeout: float = 30) -> Engine | None:
    """A synchronous engine on the same SQLite file, with the same pragmas (None for another
    database): for work that is cheaper as one synchronous call than as the async driver's
    hand-offs to its thread, one per statement and fetch. `timeout`: how long a statement
    waits for a lock before `OperationalError`."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):  # not one shared file
        return None
    sync = sa.create_engine(
        url.set(drivername="sqlite+pysqlite"), connect_args={"timeout": timeout, "check_same_thread": False}
    )
    event.listen(sync, "connect", sqlite_pragmas)
    return sync


class LoopReader:
    """Short reads of a hot path. On SQLite they run in the loop's own thread on a plain
    connection: a read of a WAL database does not wait for writers, and the async driver's
    hand-offs to its thread (cursor, execute, fetch, close) cost more than the read itself.
    Should the file be busy anyway (a checkpoint, a recovery), the read gives up after
    `busy_seconds` (it blocks the loop meanwhile) and waits for the file on the async driver.
    Elsewhere (PostgreSQL) every read goes through the async driver."""

    def __init__(self, engine: AsyncEngine, what: str, busy_seconds: float = 0.05) -> None:
        self.engine = engine
        self.what = what
        self.sync = sqlite_sync_engine(engine, timeout=busy_seconds)

    async def all(self, statement: sa.Executable, params: Mapping[str, Any] | None = None) -> Sequence[sa.Row[Any]]:
        if self.sync is not None:
            try:
                with self.sync.connect() as conn:
                    return conn.execute(statement, params).all()
            except sa.exc.OperationalError:
                log.warning("%s found the database busy: read on the async driver", self.what)
        async with self.engine.connect() as conn:
            return (await conn.execute(statement, params)).all()

    def close(self) -> None:
        if self.sync is not None:
            self.sync.dispose()


class Transactions:
    """Run a synchronous function inside one transaction without blocking the event loop: on
    SQLite on a dedicated thread with a plain sqlite3 connection (one hand-off per transaction
    instead of one per statement and fetch, each of which waited for the GIL under load);
    elsewhere inside `AsyncConnection.run_sync` (asyncpg). On SQLite one runs at a time (one
    thread, as SQLite has one writer anyway): callers batch what they write."""

    def __init__(self, engine: AsyncEngine, name: str) -> None:
        self.engine = engine
        self.sync = sqlite_sync_engine(engine)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix=name) if self.sync is not None else None

    async def run(self, fn: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        sync = self.sync
        if sync is None:
            async with self.engine.begin() as conn:
                return await conn.run_sync(fn, *args, **kwargs)

        def transaction() -> T:
            with sync.begin() as conn:
                return fn(conn, *args, **kwargs)

        return await asyncio.get_running_loop().run_in_executor(self.thread, transaction)

    def close(self) -> None:
        if self.thread is not None:
            self.thread.shutdown(wait=True)
        if self.sync is not None:
            self.sync.dispose()


def create_engine(url: str, **options: object) -> AsyncEngine:
    """An async engine. SQLite gets WAL, foreign keys and a busy timeout so that several
    processes can share one file; its parent directory is created."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30}, **options)
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
        return engine
    options.setdefault("pool_size", 10)
    options.setdefault("max_overflow", 10)
    options.setdefault("pool_pre_ping", True)
    return create_async_engine(url, **options)


def session_factory(engine: AsyncEngine) -> async_sessionmaker:
    return async_sessionmaker(engine, expire_on_commit=False)


async def ping(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        await conn.execute(text("SELECT 1"))


def _alembic_config(package: str, service: str, connection: Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files(package) / "migrations"))
    cfg.attributes["connection"] = connection
    cfg.attributes["version_table"] = f"alembic_version_{service}"
    return cfg


async def migrate(engine: AsyncEngine, package: str, service: str) -> None:
    """Bring the service's schema to the newest revision of `<package>/migrations`.

    Each service keeps its own version table, so services can share one database.
    """

    def upgrade(connection: Connection) -> None:
        command.upgrade(_alembic_config(package, service, connection), "head")

    async with engine.begin() as conn:
        await conn.run_sync(upgrade)


async def pending(engine: AsyncEngine, package: str, service: str) -> bool:
    """Whether the service's schema is behind the newest revision (a migration is due)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    def behind(connection: Connection) -> bool:
        cfg = _alembic_config(package, service, connection)
        heads = set(ScriptDirectory.from_config(cfg).get_heads())
        ctx = MigrationContext.configure(connection, opts={"version_table": f"alembic_version_{service}"})
        return set(ctx.get_current_heads()) != heads

    async with engine.connect() as conn:
        return await conn.run_sync(behind)
