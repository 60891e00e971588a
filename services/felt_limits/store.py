"""Tables and queries of the limits service (SQLAlchemy Core, and the check's one read as SQL text
written once per shape; SQLite and PostgreSQL alike)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

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
    sa.Column("owner_id", sa.String(200), nullable=True),
    sa.Column("account_id", sa.String(200), nullable=True),
    sa.Column("bought_in", sa.BigInteger, nullable=False, default=0),
    sa.Column("cashed_out", sa.BigInteger, nullable=False, default=0),
    sa.Column("wager", sa.BigInteger, nullable=False, default=0),
    sa.Column("hands", sa.Integer, nullable=False, default=0),
    sa.Column("closed", sa.Boolean, nullable=False, default=False),
    # a scope's reserved exposure sums its open sessions only (migration 0002)
    sa.Index("ix_limits_sessions_owner_open", "owner_id", "closed"),
    sa.Index("ix_limits_sessions_account_open", "account_id", "closed"),
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
    return _insert(conn.dialect.name, table)


def _insert(dialect: str, table: sa.Table) -> Any:
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


# The batch writers' statements, built once per dialect and executed with a list of rows
# (SQLAlchemy's insertmanyvalues batches them): compiled once and cached whatever the batch size
# (a `.values(rows)` statement would be compiled anew for every batch), and no statement objects
# built per batch (their `excluded` aliases and columns are reference cycles, left to the garbage
# collector).


@functools.cache
def _mark_events(dialect: str) -> Any:
    return _insert(dialect, events).on_conflict_do_nothing(index_elements=["event_id"]).returning(events.c.event_id)


@functools.cache
def _add_daily(dialect: str) -> Any:
    stmt = _insert(dialect, daily)
    return stmt.on_conflict_do_update(
        index_elements=["scope", "scope_id", "day"],
        set_={"buy_in": daily.c.buy_in + stmt.excluded.buy_in, "wager": daily.c.wager + stmt.excluded.wager},
    )


@functools.cache
def _add_hands(dialect: str) -> Any:
    return (
        _insert(dialect, session_hands)
        .on_conflict_do_nothing(index_elements=["session_id", "hand_id"])
        .returning(session_hands.c.session_id, session_hands.c.hand_id)
    )


@functools.cache
def _add_sessions(dialect: str) -> Any:
    stmt = _insert(dialect, sessions)
    x = stmt.excluded
    return stmt.on_conflict_do_update(
        index_elements=["session_id"],
        set_={
            "bought_in": sessions.c.bought_in + x.bought_in,
            "cashed_out": sessions.c.cashed_out + x.cashed_out,
            "wager": sessions.c.wager + x.wager,
            "hands": sessions.c.hands + x.hands,
            "owner_id": sa.func.coalesce(sessions.c.owner_id, x.owner_id),
            "account_id": sa.func.coalesce(sessions.c.account_id, x.account_id),
            "closed": sa.or_(sessions.c.closed, x.closed),
        },
    )


async def mark_events(conn: AsyncConnection, marks: list[tuple[str, str]], now: datetime) -> set[str]:
    """Record many (event id, kind); the ids that were new (not seen before)."""
    rows = [{"event_id": e, "kind": k, "processed_at": now} for e, k in marks]
    result = await conn.execute(_mark_events(conn.dialect.name), rows)
    return set(result.scalars().all())


async def add_daily_many(conn: AsyncConnection, deltas: dict[tuple[str, str, date], tuple[int, int]]) -> None:
    """Add (buy-in, wager) to many daily rows in one upsert."""
    rows = [{"scope": k, "scope_id": i, "day": d, "buy_in": b, "wager": w} for (k, i, d), (b, w) in deltas.items()]
    await conn.execute(_add_daily(conn.dialect.name), rows)


async def add_hands(conn: AsyncConnection, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Record many (session, hand); the pairs that were new."""
    result = await conn.execute(_add_hands(conn.dialect.name), [{"session_id": s, "hand_id": h} for s, h in pairs])
    return [(r.session_id, r.hand_id) for r in result.all()]


async def add_sessions(conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
    """Add buy-ins, cash-outs, wager and hands to many sessions in one upsert (`closed` only
    ever goes from False to True; the first owner and account seen stay)."""
    await conn.execute(_add_sessions(conn.dialect.name), rows)


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


class CapRow(NamedTuple):
    """An explicit cap as `policy.effective` reads it."""

    cap: int | None
    pending_cap: int | None
    pending_effective_at: datetime | None


@dataclass
class CheckReads:
    """Everything one check reads: frozen (scope, id) with their reason, explicit caps by (scope,
    id) and limit name, daily (buy-in, wager) and reserved exposure by counted (scope, id), and
    the session's (hands, wager)."""

    frozen: dict[tuple[str, str], str]
    caps: dict[tuple[str, str], dict[str, CapRow]]
    daily: dict[tuple[str, str], tuple[int, int]]
    exposure: dict[tuple[str, str], int]
    session: tuple[int, int] | None


#: a scope's reserved exposure: the chips its open sessions hold reserved, max(0, buy-ins -
#: cash-outs) each, summed (rows found by the open-session indexes: `closed = false`)
_EXPOSURE = "CAST(COALESCE(SUM(CASE WHEN bought_in > cashed_out THEN bought_in - cashed_out ELSE 0 END), 0) AS BIGINT)"


def _open_sessions_of(scope: str, param: str) -> str:
    column = "owner_id" if scope == "owner" else "account_id"
    return f"FROM limits_sessions WHERE {column} = :{param} AND closed = false"


def _scoped(prefix: str, n: int) -> str:
    return " OR ".join(f"(scope = :{prefix}s{j} AND scope_id = :{prefix}i{j})" for j in range(n))


@functools.cache
def _check_statement(keys: int, counted: tuple[str, ...], daily: bool, exposure: bool, session: bool) -> Any:
    """The UNION ALL of `check_query` for one shape of check, written once: building it from
    SQLAlchemy constructs per check cost a third of the check's CPU (cache keys, coercions)."""
    parts = [  # the caps first: the union's column types are the first select's
        "SELECT 'cap', scope, scope_id, limit_name, cap, pending_cap, pending_effective_at "
        f"FROM limits_caps WHERE {_scoped('k', keys)}",
        f"SELECT 'freeze', scope, scope_id, reason, NULL, NULL, NULL FROM limits_freezes WHERE frozen AND ({_scoped('k', keys)})",
    ]
    if daily:
        parts.append(
            "SELECT 'daily', scope, scope_id, '', buy_in, wager, NULL "
            f"FROM limits_daily WHERE day = :day AND ({_scoped('c', len(counted))})"
        )
    if exposure:
        parts += [
            f"SELECT 'exposure', CAST(:cs{j} AS VARCHAR(20)), CAST(:ci{j} AS VARCHAR(200)), '', {_EXPOSURE}, NULL, NULL "
            + _open_sessions_of(scope, f"ci{j}")
            for j, scope in enumerate(counted)
        ]
    if session:
        parts.append(
            "SELECT 'session', '', session_id, '', hands, wager, NULL FROM limits_sessions WHERE session_id = :sid"
        )
    names = ("tag", "scope", "scope_id", "name", "n1", "n2")
    statement = sa.text(" UNION ALL ".join(parts)).columns(
        *(sa.column(n) for n in names), sa.column("at", sa.DateTime(timezone=True))
    )
    return statement.bindparams(sa.bindparam("day", type_=sa.Date())) if daily else statement


def check_query(
    keys: list[tuple[str, str]],
    counted: list[tuple[str, str]],
    day: date | None,
    session_id: str | None,
    exposure: bool,
) -> tuple[Any, dict[str, Any]]:
    """What a check needs, as one statement and its parameters (a UNION ALL of the caps and
    freezes of `keys`, and where asked for the daily counters of `day`, the exposure of each
    counted scope and the session): one round trip to the database instead of five, each of
    which was its own compile and thread hop. Its rows are read by `check_reads`."""
    statement = _check_statement(
        len(keys), tuple(scope for scope, _ in counted), day is not None, exposure, session_id is not None
    )
    params: dict[str, Any] = {"day": day, "sid": session_id}
    for prefix, pairs in (("k", keys), ("c", counted)):
        for j, (scope, scope_id) in enumerate(pairs):
            params[f"{prefix}s{j}"], params[f"{prefix}i{j}"] = scope, scope_id
    return statement, params


def check_reads(keys: list[tuple[str, str]], rows: Iterable[Any]) -> CheckReads:
    """The rows of `check_query` (tag, scope, scope id, name: a limit or a freeze's reason, two
    numbers, an instant) as `CheckReads`."""
    out = CheckReads({}, {k: {} for k in keys}, {}, {}, None)
    for tag, scope, scope_id, name, n1, n2, at in rows:
        if tag == "cap":
            out.caps[(scope, scope_id)][name] = CapRow(
                None if n1 is None else int(n1), None if n2 is None else int(n2), at
            )
        elif tag == "freeze":
            out.frozen[(scope, scope_id)] = name
        elif tag == "daily":
            out.daily[(scope, scope_id)] = (int(n1), int(n2))
        elif tag == "exposure":
            out.exposure[(scope, scope_id)] = int(n1)
        else:
            out.session = (int(n1), int(n2))
    return out


async def get_exposure(conn: AsyncConnection, scope: str, scope_id: str) -> int:
    statement = sa.text(f"SELECT {_EXPOSURE} {_open_sessions_of(scope, 'id')}")
    return int((await conn.execute(statement, {"id": scope_id})).scalar_one())


async def get_session(conn: AsyncConnection, session_id: str) -> sa.Row[Any] | None:
    return (await conn.execute(sa.select(sessions).where(sessions.c.session_id == session_id))).first()


async def get_caps(conn: AsyncConnection, scope: str, scope_id: str) -> dict[str, sa.Row[Any]]:
    rows = (await conn.execute(sa.select(caps).where(caps.c.scope == scope, caps.c.scope_id == scope_id))).all()
    return {row.limit_name: row for row in rows}


async def lock_cap(
    conn: AsyncConnection, scope: str, scope_id: str, limit_name: str, default: int | None, now: datetime
) -> None:
    """Hold the cap's row for this transaction (first statement: SQLite's write lock, PostgreSQL's
    row lock), so concurrent changes of one cap are decided one after the other. A missing row is
    created as the default it stands for (what `effective` reads for no row)."""
    stmt = insert(conn, caps).values(
        scope=scope,
        scope_id=scope_id,
        limit_name=limit_name,
        cap=default,
        pending_cap=None,
        pending_effective_at=None,
        updated_at=now,
    )
    await conn.execute(
        stmt.on_conflict_do_update(
            index_elements=["scope", "scope_id", "limit_name"], set_={"updated_at": caps.c.updated_at}
        )
    )


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
            sa.select(freezes.c.frozen, freezes.c.reason).where(
                freezes.c.scope == scope, freezes.c.scope_id == scope_id
            )
        )
    ).first()
    return (bool(row.frozen), row.reason) if row else (False, "")


async def put_freeze(
    conn: AsyncConnection, scope: str, scope_id: str, frozen: bool, reason: str, now: datetime
) -> None:
    values = {"frozen": frozen, "reason": reason, "updated_at": now}
    stmt = insert(conn, freezes).values(scope=scope, scope_id=scope_id, **values)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["scope", "scope_id"], set_=values))


async def get_request(conn: AsyncConnection, message_id: str) -> sa.Row[Any] | None:
    return (await conn.execute(sa.select(requests).where(requests.c.message_id == message_id))).first()


async def put_request(conn: AsyncConnection, message_id: str, fingerprint: str, result: str) -> None:
    await conn.execute(sa.insert(requests).values(message_id=message_id, fingerprint=fingerprint, result=result))
