"""Each service's schema is written twice on purpose — its migrations (frozen history) and the
tables its store queries (`store.metadata`) — so the two must agree: on SQLite and PostgreSQL,
migrate an empty database and compare it with the store's tables, CHECK constraints included
(alembic's comparison does not look at those)."""

from __future__ import annotations

import importlib

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.ext.asyncio import create_async_engine

from felt_runtime.db import migrate

SERVICES = ("felt_table", "felt_wallet", "felt_limits", "felt_gateway", "felt_tournament")
#: where a service's store module is when it is not `<package>.store` (the table's is one of its ports)
STORE_MODULES = {"felt_table": "felt_table.ports.store"}


def checks(table: sa.Table) -> set[str]:
    return {c.name for c in table.constraints if isinstance(c, sa.CheckConstraint) and isinstance(c.name, str)}


def differences(conn: sa.Connection, metadata: sa.MetaData) -> list[str]:
    ctx = MigrationContext.configure(conn, opts={"compare_type": True})
    found = [
        str(d)
        for d in compare_metadata(ctx, metadata)
        if not (isinstance(d, tuple) and d[0] == "remove_table" and d[1].name.startswith("alembic_version"))
    ]
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        migrated = {c["name"] for c in inspector.get_check_constraints(table.name) if c.get("name")}
        if migrated != checks(table):
            found.append(
                f"{table.name}: CHECK constraints migrated {sorted(migrated)} != store {sorted(checks(table))}"
            )
    return found


@pytest.mark.parametrize("package", SERVICES)
async def test_the_migrations_build_exactly_the_stores_tables(package: str, database_url: str) -> None:
    store = importlib.import_module(STORE_MODULES.get(package, f"{package}.store"))
    engine = create_async_engine(database_url)
    try:
        await migrate(engine, package, package.removeprefix("felt_"))
        async with engine.connect() as conn:
            found = await conn.run_sync(differences, store.metadata)
    finally:
        await engine.dispose()
    assert found == []
