"""Read-only queries (balance, leaderboard, session history); they never go through the writer."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    CHIPS_PREFIX,
    Balance,
    Leaderboard,
    LeaderboardEntry,
    RefillState,
    SessionHistory,
    SessionInfo,
)
from felt_runtime import paging
from felt_runtime.bus import BusError
from felt_wallet import refills
from felt_wallet.refills import Grants
from felt_wallet.store import accounts, commands, ledger, sessions


async def refill_state(engine: AsyncEngine, grants: Grants, account_id: str, now: datetime) -> RefillState:
    """`refills.state` from the account's balance and whether today's claim is marked."""
    held = await balance(engine, account_id)
    async with engine.connect() as conn:
        marked = (
            await conn.execute(sa.select(commands.c.key).where(commands.c.key == refills.day_key(account_id, now)))
        ).first()
    return refills.state(grants, account_id, held.available + held.reserved + held.in_play, marked is not None, now)


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


async def leaderboard(engine: AsyncEngine, limit: int, after: str | None = None) -> Leaderboard:
    """A page by total, highest first, then account id; the cursor carries the last rank shown
    (totals move between pages: each page is the board as it was read)."""
    past = paging.key(after, int, str, int)
    total = sa.func.sum(ledger.c.balance).label("total")
    stmt = (
        sa.select(ledger.c.account_id, accounts.c.owner_id, total, accounts.c.granted)
        .join(accounts, accounts.c.account_id == ledger.c.account_id)
        .where(ledger.c.kind.in_(["available", "reserve"]), ~ledger.c.account_id.startswith(CHIPS_PREFIX))
        .group_by(ledger.c.account_id, accounts.c.owner_id, accounts.c.granted)
        .order_by(total.desc(), ledger.c.account_id)
        .limit(limit + 1)
    )
    if past is not None:
        stmt = stmt.having((total < past[0]) | ((total == past[0]) & (ledger.c.account_id > past[1])))
    async with engine.connect() as conn:
        rows = (await conn.execute(stmt)).all()
    first = past[2] + 1 if past is not None else 1
    entries = [
        LeaderboardEntry(rank=first + n, account_id=a, owner_id=o, total=int(t), granted=int(g))
        for n, (a, o, t, g) in enumerate(rows)
    ]
    shown, more = paging.page(entries, limit, lambda e: (e.total, e.account_id, e.rank))
    return Leaderboard(entries=shown, next=more)


async def session_history(engine: AsyncEngine, account_id: str, limit: int, after: str | None = None) -> SessionHistory:
    """A page of sessions, newest opened first, then by session id."""
    past = paging.key(after, datetime, str)
    async with engine.connect() as conn:
        acct = (
            await conn.execute(
                sa.select(accounts.c.granted, accounts.c.refilled).where(accounts.c.account_id == account_id)
            )
        ).first()
        if acct is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown account", account_id=account_id)
        rows = (
            (
                await conn.execute(
                    sa.select(sessions)
                    .where(sessions.c.account_id == account_id, _past(past))
                    .order_by(sessions.c.opened_at.desc(), sessions.c.session_id)
                    .limit(limit + 1)
                )
            )
            .mappings()
            .all()
        )
    shown, more = paging.page(rows, limit, lambda r: (r["opened_at"], r["session_id"]))
    return SessionHistory(
        account_id=account_id,
        granted=int(acct.granted),
        refilled=int(acct.refilled),
        next=more,
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
            for r in shown
        ],
    )


def _past(after: tuple[Any, ...] | None) -> sa.ColumnElement[bool]:
    """Sessions strictly past the sort key `after` (opened_at, session_id)."""
    if after is None:
        return sa.true()
    opened, session_id = after
    return (sessions.c.opened_at < opened) | ((sessions.c.opened_at == opened) & (sessions.c.session_id > session_id))
