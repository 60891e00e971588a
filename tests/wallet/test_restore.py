"""A backup of the wallet's PostgreSQL restores (docs/operations.md, "Backing up and restoring the
databases"): `pg_dump -Fc` of a ledger with money moved, `pg_restore` into a fresh database, and the
restored ledger sums to zero against the grants and holds every balance the original held."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from felt_contracts import subjects as s
from felt_contracts.wallet import AccountOpened, BuyIn, BuyInResult, OpenAccount
from felt_runtime.bus import call
from felt_runtime.db import create_engine
from felt_wallet.store import ledger
from tests.wallet.conftest import check_invariants


def libpq(url: str) -> str:
    """The URL pg_dump and pg_restore take (no driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def balances(engine) -> list[tuple[str, int]]:
    async with engine.connect() as conn:
        return sorted((await conn.execute(sa.select(ledger.c.key, ledger.c.balance))).all())


async def test_a_dump_restores_into_a_fresh_database_with_every_balance(
    wallet, database_url, postgres, tmp_path
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("the backup is PostgreSQL's (SQLite: copy the file with the service stopped)")
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("no PostgreSQL client binaries (pg_dump, pg_restore) on this machine")
    c = wallet.client
    for p in ("p1", "p2", "p3"):
        await call(c, s.WALLET_OPEN_ACCOUNT, OpenAccount(account_id=p, owner_id="o1"), AccountOpened)
    for p, amount in (("p1", 50), ("p2", 120)):
        req = BuyIn(account_id=p, table_id="t1", amount=amount, min_buy_in=10, max_buy_in=150)
        await call(c, s.WALLET_BUY_IN, req, BuyInResult)
    original = await balances(wallet.engine)
    totals = await check_invariants(wallet.engine)

    dump = tmp_path / "wallet.dump"
    subprocess.run(["pg_dump", "-Fc", "-f", str(dump), libpq(database_url)], check=True, capture_output=True)
    fresh = await postgres.create()
    subprocess.run(
        ["pg_restore", "--no-owner", "-d", libpq(fresh), str(dump)], check=True, capture_output=True, text=True
    )
    restored = create_engine(fresh)
    try:
        assert await balances(restored) == original and any(key.startswith("reserve") for key, _ in original)
        assert await check_invariants(restored) == totals
    finally:
        await restored.dispose()
