"""Tables and queries of the limits service (SQLAlchemy Core; SQLite and PostgreSQL alike)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

metadata = sa.MetaData()

#: Every wallet TransferEvent applied, by event id: a redelivered event is seen here and dropped.
events = sa.Table(
    "limits_events",
    metadata,
    sa.Column("event_id", sa.String(200), primary_key=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("processed_at", sa.DateTime(timezone=True), nullable=False),
)

#: Daily counters per scope (owner / participant) and UTC day.
daily = sa.Table(
    "limits_daily",
    metadata,
    sa.Column("scope", sa.String(20), primary_key=True),
    sa.Column("scope_id", sa.String(200), primary_key=True),
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("buy_in", sa.BigInteger, nullable=False, default=0),
    sa.Column("wager", sa.BigInteger, nullable=False, default=0),
)

#: Table sessions: lifetime hands/wager and the buy-in/cash-out behind reserved exposure.
sessions = sa.Table(
    "limits_sessions",
    metadata,
    sa.Column("session_id", sa.String(500), primary_key=True),
    sa.Column("owner_id", sa.String(200), nullable=True, index=True),
    sa.Column("account_id", sa.String(200), nullable=True, index=True),
    sa.Column("bought_in", sa.BigInteger, nullable=False, default=0),
    sa.Column("cashed_out", sa.BigInteger, nullable=False, default=0),
    sa.Column("wager", sa.BigInteger, nullable=False, default=0),
    sa.Column("hands", sa.Integer, nullable=False, default=0),
    sa.Column("closed", sa.Boolean, nullable=False, default=False),
)

#: Distinct hands per session (a hand counts once however many commits it has).
session_hands = sa.Table(
    "limits_session_hands",
    metadata,
    sa.Column("session_id", sa.String(500), primary_key=True),
    sa.Column("hand_id", sa.String(200), primary_key=True),
)

#: Caps set explicitly (otherwise: the settings' owner defaults; participants: none).
caps = sa.Table(
    "limits_caps",
    metadata,
    sa.Column("scope", sa.String(20), primary_key=True),
    sa.Column("scope_id", sa.String(200), primary_key=True),
    sa.Column("limit_name", sa.String(40), primary_key=True),
    sa.Column("cap", sa.BigInteger, nullable=True),  # NULL: no cap
    sa.Column("pending_cap", sa.BigInteger, nullable=True),
    sa.Column("pending_effective_at", sa.DateTime(timezone=True), nullable=True),  # NULL: none pending
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

freezes = sa.Table(
    "limits_freezes",
    metadata,
    sa.Column("scope", sa.String(20), primary_key=True),
    sa.Column("scope_id", sa.String(200), primary_key=True),
    sa.Column("frozen", sa.Boolean, nullable=False),
    sa.Column("reason", sa.String(500), nullable=False, default=""),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

#: Idempotency of commands: the first result per message id.
requests = sa.Table(
    "limits_requests",
    metadata,
    sa.Column("message_id", sa.String(200), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("result", sa.Text, nullable=False),
)


def insert(conn: AsyncConnection, table: sa.Table) -> Any:
    """The dialect's INSERT (with ON CONFLICT support)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


async def mark_event(conn: AsyncConnection, event_id: str, kind: str, now: datetime) -> bool:
    """Record an event id; False when it was already there (a duplicate)."""
    stmt = insert(conn, events).values(event_id=event_id, kind=kind, processed_at=now)
    result = await conn.execute(stmt.on_conflict_do_nothing(index_elements=["event_id"]))
    return result.rowcount == 1


async def add_daily(conn: AsyncConnection, scope: str, scope_id: str, day: date, *, buy_in: int = 0, wager: int = 0) -> None:
    stmt = insert(conn, daily).values(scope=scope, scope_id=scope_id, day=day, buy_in=buy_in, wager=wager)
    await conn.execute(
        stmt.on_conflict_do_update(
            index_elements=["scope", "scope_id", "day"],
            set_={"buy_in": daily.c.buy_in + buy_in, "wager": daily.c.wager + wager},
        )
    )


async def add_session(
    conn: AsyncConnection,
    session_id: str,
    owner_id: str | None,
    account_id: str | None,
    *,
    bought_in: int = 0,
    cashed_out: int = 0,
    wager: int = 0,
    hands: int = 0,
    close: bool = False,
) -> None:
    stmt = insert(conn, sessions).values(
        session_id=session_id,
        owner_id=owner_id,
        account_id=account_id,
        bought_in=bought_in,
        cashed_out=cashed_out,
        wager=wager,
        hands=hands,
        closed=close,
    )
    updates: dict[str, Any] = {
        "bought_in": sessions.c.bought_in + bought_in,
        "cashed_out": sessions.c.cashed_out + cashed_out,
        "wager": sessions.c.wager + wager,
        "hands": sessions.c.hands + hands,
        "owner_id": sa.func.coalesce(sessions.c.owner_id, owner_id),
        "account_id": sa.func.coalesce(sessions.c.account_id, account_id),
    }
    if close:
        updates["closed"] = True
    await conn.execute(stmt.on_conflict_do_update(index_elements=["session_id"], set_=updates))


async def add_hand(conn: AsyncConnection, session_id: str, hand_id: str) -> bool:
    """True when this hand is new for the session."""
    stmt = insert(conn, session_hands).values(session_id=session_id, hand_id=hand_id)
    result = await conn.execute(stmt.on_conflict_do_nothing(index_elements=["session_id", "hand_id"]))
    return result.rowcount == 1


async def close_session(conn: AsyncConnection, session_id: str) -> None:
    """Close a session; one not seen yet is recorded closed, so its late events cannot reopen it."""
    stmt = insert(conn, sessions).values(
        session_id=session_id, owner_id=None, account_id=None, bought_in=0, cashed_out=0, wager=0, hands=0, closed=True
    )
    await conn.execute(stmt.on_conflict_do_update(index_elements=["session_id"], set_={"closed": True}))


async def get_daily(conn: AsyncConnection, scope: str, scope_id: str, day: date) -> tuple[int, int]:
    row = (
        await conn.execute(
            sa.select(daily.c.buy_in, daily.c.wager).where(
                daily.c.scope == scope, daily.c.scope_id == scope_id, daily.c.day == day
            )
        )
    ).first()
    return (int(row.buy_in), int(row.wager)) if row else (0, 0)


def _reserved() -> sa.ColumnElement[Any]:
    return sa.case((sessions.c.bought_in > sessions.c.cashed_out, sessions.c.bought_in - sessions.c.cashed_out), else_=0)


async def get_exposure(conn: AsyncConnection, scope: str, scope_id: str) -> int:
    """Chips reserved in the scope's open sessions: sum of max(0, buy-ins - cash-outs)."""
    column = sessions.c.owner_id if scope == "owner" else sessions.c.account_id
    total = (
        await conn.execute(
            sa.select(sa.func.coalesce(sa.func.sum(_reserved()), 0)).where(column == scope_id, sessions.c.closed.is_(False))
        )
    ).scalar_one()
    return int(total)


async def get_session(conn: AsyncConnection, session_id: str) -> sa.Row[Any] | None:
    return (await conn.execute(sa.select(sessions).where(sessions.c.session_id == session_id))).first()


async def get_caps(conn: AsyncConnection, scope: str, scope_id: str) -> dict[str, sa.Row[Any]]:
    rows = (await conn.execute(sa.select(caps).where(caps.c.scope == scope, caps.c.scope_id == scope_id))).all()
    return {row.limit_name: row for row in rows}


async def put_cap(
    conn: AsyncConnection,
    scope: str,
    scope_id: str,
    limit_name: str,
    cap: int | None,
    pending_cap: int | None,
    pending_effective_at: datetime | None,
    now: datetime,
) -> None:
    values = {"cap": cap, "pending_cap": pending_cap, "pending_effective_at": pending_effective_at, "updated_at": now}
    stmt = insert(conn, caps).values(scope=scope, scope_id=scope_id, limit_name=limit_name, **values)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["scope", "scope_id", "limit_name"], set_=values))


async def get_freeze(conn: AsyncConnection, scope: str, scope_id: str) -> tuple[bool, str]:
    row = (
        await conn.execute(
            sa.select(freezes.c.frozen, freezes.c.reason).where(freezes.c.scope == scope, freezes.c.scope_id == scope_id)
        )
    ).first()
    return (bool(row.frozen), row.reason) if row else (False, "")


async def put_freeze(conn: AsyncConnection, scope: str, scope_id: str, frozen: bool, reason: str, now: datetime) -> None:
    values = {"frozen": frozen, "reason": reason, "updated_at": now}
    stmt = insert(conn, freezes).values(scope=scope, scope_id=scope_id, **values)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["scope", "scope_id"], set_=values))


async def get_request(conn: AsyncConnection, message_id: str) -> sa.Row[Any] | None:
    return (await conn.execute(sa.select(requests).where(requests.c.message_id == message_id))).first()


async def put_request(conn: AsyncConnection, message_id: str, fingerprint: str, result: str) -> None:
    await conn.execute(sa.insert(requests).values(message_id=message_id, fingerprint=fingerprint, result=result))
