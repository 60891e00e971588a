"""Wallet fixtures: the wallet in-process on a real NATS broker and a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from faststream.nats import NatsBroker

from felt_runtime.bus import make_broker
from felt_runtime.service import ServiceContext
from felt_runtime.settings import Settings
from felt_wallet.app import build
from felt_wallet.settings import WalletSettings
from felt_wallet.store import HOUSE, accounts, hands, ledger, transfers


@dataclass
class InProcessWallet:
    ctx: ServiceContext
    client: NatsBroker
    writer: Any = None  # its clock may be moved (tests of the UTC day)

    @property
    def engine(self) -> Any:
        return self.ctx.database()


async def start_wallet(nats_url: str, database_url: str, **wallet: Any) -> InProcessWallet:
    settings = Settings(nats_url=nats_url, database_url=database_url)
    ctx = ServiceContext(name="wallet", settings=settings, broker=make_broker(nats_url, "wallet"))
    writer = build(ctx, WalletSettings(**wallet))
    for hook in ctx.startup:
        await hook()
    await ctx.broker.start()
    client = NatsBroker(nats_url)
    await client.connect()
    return InProcessWallet(ctx, client, writer)


async def stop_wallet(w: InProcessWallet) -> None:
    await w.client.stop()
    await w.ctx.broker.stop()
    for hook in reversed(w.ctx.shutdown):
        await hook()


@pytest.fixture
async def wallet(nats_url: str, database_url: str) -> AsyncIterator[InProcessWallet]:
    w = await start_wallet(nats_url, database_url)
    yield w
    await stop_wallet(w)


async def snapshot(engine: Any) -> dict[str, Any]:
    """Everything a refused command must leave unchanged."""
    async with engine.connect() as conn:
        return {
            "ledger": sorted((await conn.execute(sa.select(ledger.c.key, ledger.c.balance))).all()),
            "transfers": (await conn.execute(sa.select(sa.func.count()).select_from(transfers))).scalar_one(),
            "hands": sorted((await conn.execute(sa.select(hands.c.hand_id, hands.c.status))).all()),
            "in_play": sorted((await conn.execute(sa.select(accounts.c.account_id, accounts.c.in_play))).all()),
        }


async def check_invariants(engine: Any) -> dict[str, int]:
    """Conservation and non-negativity over the whole ledger; returns a few totals.

    Each invariant is read by one SQL statement, so it sees one snapshot while the room runs: two
    SELECTs on SQLite (no transaction is begun for reads) or PostgreSQL (read committed) can see a
    settle land between them, and an escrow read before it next to a status read after it looked
    like an ended hand still holding chips (seen in a one-hour soak, three times)."""
    grant_sum = sa.select(sa.func.coalesce(sa.func.sum(transfers.c.amount), 0)).where(
        transfers.c.kind.in_(["grant", "refill"])
    )
    granted = sa.select(sa.func.coalesce(sa.func.sum(accounts.c.granted), 0))
    # the house's own account (a tournament's chips issuer is house-kind too, but grants nothing)
    house = sa.select(sa.func.coalesce(sa.func.sum(ledger.c.balance), 0)).where(ledger.c.key == HOUSE)
    total = sa.select(sa.func.coalesce(sa.func.sum(ledger.c.balance), 0))
    negative = sa.select(sa.func.count()).where(ledger.c.kind != "house", ledger.c.balance < 0)
    async with engine.connect() as conn:
        sums = (
            await conn.execute(
                sa.select(
                    total.scalar_subquery(),
                    house.scalar_subquery(),
                    grant_sum.scalar_subquery(),
                    granted.scalar_subquery(),
                )
            )
        ).one()
        negatives = (await conn.execute(negative.select_from(ledger))).scalar_one()
        held = (
            await conn.execute(
                sa.select(ledger.c.hand_id, ledger.c.balance, hands.c.status)
                .select_from(ledger.outerjoin(hands, hands.c.hand_id == ledger.c.hand_id))
                .where(ledger.c.kind == "escrow")
            )
        ).all()
        hand_status = dict((await conn.execute(sa.select(hands.c.hand_id, hands.c.status))).all())
    ledger_sum, house_balance, grants, accounts_granted = (int(v) for v in sums)
    assert ledger_sum == 0, "ledger does not sum to zero"
    assert -house_balance == grants, "house balance is not minus the grants and refills"
    assert accounts_granted == grants, "the accounts' granted totals are not the grants and refills"
    assert negatives == 0, "a ledger account is negative"
    for hand_id, bal, status in held:
        if status != "open":
            assert bal == 0, f"ended hand {hand_id} still holds {bal}"
    assert set(hand_status.values()) <= {"open", "settled", "cancelled"}
    return {"grants": grants, "open_hands": sum(1 for s in hand_status.values() if s == "open")}
