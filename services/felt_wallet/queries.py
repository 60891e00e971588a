"""Read-only queries (balance, leaderboard, session history); they never go through the writer."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import Balance, Leaderboard, LeaderboardEntry, SessionHistory, SessionInfo
from felt_runtime.bus import BusError
from felt_wallet.store import accounts, ledger, sessions


async def balance(engine: AsyncEngine, account_id: str) -> Balance:
    async with engine.connect() as conn:
        acct = (await conn.execute(sa.select(accounts).where(accounts.c.account_id == account_id))).mappings().first()
        if acct is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown account", account_id=account_id)
        rows = (
            await conn.execute(
                sa.select(ledger.c.kind, ledger.c.table_id, ledger.c.balance).where(ledger.c.account_id == account_id)
            )
        ).all()
    reserves = {t: b for k, t, b in rows if k == "reserve" and b > 0}
    return Balance(
        account_id=account_id,
        owner_id=acct["owner_id"],
        available=sum(b for k, _, b in rows if k == "available"),
        reserved=sum(reserves.values()),
        in_play=acct["in_play"],
        reserves=reserves,
    )


async def leaderboard(engine: AsyncEngine, limit: int) -> Leaderboard:
    total = sa.func.sum(ledger.c.balance).label("total")
    stmt = (
        sa.select(ledger.c.account_id, accounts.c.owner_id, total)
        .join(accounts, accounts.c.account_id == ledger.c.account_id)
        .where(ledger.c.kind.in_(["available", "reserve"]))
        .group_by(ledger.c.account_id, accounts.c.owner_id)
        .order_by(total.desc(), ledger.c.account_id)
        .limit(limit)
    )
    async with engine.connect() as conn:
        rows = (await conn.execute(stmt)).all()
    return Leaderboard(entries=[LeaderboardEntry(account_id=a, owner_id=o, total=int(t)) for a, o, t in rows])


async def session_history(engine: AsyncEngine, account_id: str, limit: int) -> SessionHistory:
    async with engine.connect() as conn:
        if (
            await conn.execute(sa.select(accounts.c.account_id).where(accounts.c.account_id == account_id))
        ).first() is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown account", account_id=account_id)
        rows = (
            (
                await conn.execute(
                    sa.select(sessions)
                    .where(sessions.c.account_id == account_id)
                    .order_by(sessions.c.opened_at.desc(), sessions.c.session_id)
                    .limit(limit)
                )
            )
            .mappings()
            .all()
        )
    return SessionHistory(
        account_id=account_id,
        sessions=[
            SessionInfo(
                session_id=r["session_id"],
                table_id=r["table_id"],
                status=r["status"],
                buy_in=r["buy_in"],
                cash_out=r["cash_out"],
                net=r["cash_out"] - r["buy_in"],
                gross_wagers=r["gross_wagers"],
                hands_played=r["hands_played"],
                opened_at=r["opened_at"],
                closed_at=r["closed_at"],
            )
            for r in rows
        ],
    )
