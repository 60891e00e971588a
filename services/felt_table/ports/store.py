"""SQLAlchemy tables and queries (SQLite and PostgreSQL): created tables, events, hands, and
the end of each hand (settle or cancel) until the wallet acknowledged it."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_runtime.db import Transactions

metadata = sa.MetaData()
table_configs = sa.Table(
    "table_configs",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("config", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("host_state", sa.Text),  # a hosted table's state (felt_table.model.hosting.Hosting)
    sa.Column("closed", sa.Boolean, nullable=False, server_default=sa.false()),  # hosted: closed for good
)
table_events = sa.Table(
    "table_events",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("hand_id", sa.String(100)),
    sa.Column("body", sa.Text, nullable=False),
)
table_hands = sa.Table(
    "table_hands",
    metadata,
    sa.Column("hand_id", sa.String(100), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False, index=True),
    sa.Column("rules_version", sa.String(50), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("participants", sa.Text, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
)
#: each dealt player's result of a settled hand (model/results.py): the ladder and matches read them
table_hand_results = sa.Table(
    "table_hand_results",
    metadata,
    sa.Column("hand_id", sa.String(100), primary_key=True),
    sa.Column("participant_id", sa.String(200), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False, index=True),
    sa.Column("opponents", sa.Text, nullable=False),  # the other players dealt in, sorted, comma-separated
    sa.Column("net", sa.BigInteger, nullable=False),
    sa.Column("unit", sa.BigInteger, nullable=False),  # the big blind (or ante) the hand is counted in
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
)
table_hand_ends = sa.Table(
    "table_hand_ends",
    metadata,
    sa.Column("hand_id", sa.String(100), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False, index=True),
    sa.Column("kind", sa.String(10), nullable=False),  # settle | cancel
    sa.Column("request", sa.Text, nullable=False),  # the wallet request, resent as it is until answered
    sa.Column("acked", sa.Boolean, nullable=False),
)


@dataclass
class Write:
    """What one command persists in one transaction: its events, the hand it finished, the
    end of a hand it is about to ask the wallet for, and the ends the wallet acknowledged."""

    events: list[dict[str, Any]]
    hand: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    acked: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return not self.events and self.hand is None and self.end is None and not self.acked


class Store:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.transactions = Transactions(engine, "table-store")
        self._pending: list[tuple[Write, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def created_tables(self) -> list[str]:
        """The configurations of the tables created over the bus that are open (a hosted table
        that closed is not run again)."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(sa.select(table_configs.c.config).where(table_configs.c.closed.is_(False)))
            ).scalars()
            return list(rows.all())

    async def add_table(self, table_id: str, config: str, at: datetime, host_state: str | None = None) -> None:
        """Through the store's one writer, queued behind at most the batch in progress: on SQLite a
        second writer polls for the lock between the play's back-to-back group commits and can lose
        for seconds (a table's creation would time out in a busy room)."""
        await self.transactions.run(_add_table, table_id, config, at, host_state)

    async def hosted_configs(self) -> list[str]:
        """The configurations of every open hosted table (whoever runs it)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(table_configs.c.config).where(
                    table_configs.c.closed.is_(False), table_configs.c.host_state.is_not(None)
                )
            )
            return list(rows.scalars().all())

    async def host_state(self, table_id: str) -> str | None:
        async with self.engine.connect() as conn:
            return (
                await conn.execute(sa.select(table_configs.c.host_state).where(table_configs.c.table_id == table_id))
            ).scalar()

    async def save_hosted(self, table_id: str, config: str, host_state: str, closed: bool) -> None:
        """A hosted table's configuration (its blinds change) and state, kept across restarts."""
        await self.transactions.run(_save_hosted, table_id, config, host_state, closed)

    async def hands_played(self, table_id: str) -> int:
        """Settled hands of the table (a room limited by hands counts them)."""
        async with self.engine.connect() as conn:
            value = (
                await conn.execute(
                    sa.select(sa.func.count())
                    .select_from(table_hands)
                    .where(table_hands.c.table_id == table_id, table_hands.c.status == "settled")
                )
            ).scalar()
        return int(value or 0)

    async def last_seq(self, table_id: str) -> int:
        async with self.engine.connect() as conn:
            value = (
                await conn.execute(
                    sa.select(sa.func.max(table_events.c.seq)).where(table_events.c.table_id == table_id)
                )
            ).scalar()
        return int(value or 0)

    async def pending_ends(self, table_id: str) -> list[tuple[str, str]]:
        """(kind, request) of every hand end of this table the wallet has not acknowledged."""
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(table_hand_ends.c.kind, table_hand_ends.c.request)
                    .where(table_hand_ends.c.table_id == table_id, table_hand_ends.c.acked.is_(False))
                    .order_by(table_hand_ends.c.hand_id)
                )
            ).all()
        return [(k, row) for k, row in rows]

    async def write(self, write: Write) -> None:
        """Persist one command's `Write`; returns once committed.

        Commands of different tables that flush while a transaction is in progress share the
        next one (group commit): with many tables the database sees one transaction per batch
        instead of one per command. Should a shared transaction fail, each command is written
        alone, so one bad write fails only its own command."""
        done = asyncio.get_running_loop().create_future()
        self._pending.append((write, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await self._write([write for write, _ in batch])
                outcomes: list[BaseException | None] = [None] * len(batch)
            except Exception:  # noqa: BLE001 - retried one by one below
                outcomes = []
                for write, _ in batch:
                    try:
                        await self._write([write])
                        outcomes.append(None)
                    except Exception as exc:  # noqa: BLE001 - that command's own failure
                        outcomes.append(exc)
            for (_, done), failure in zip(batch, outcomes):
                if done.done():
                    continue
                if failure is None:
                    done.set_result(None)
                else:
                    done.set_exception(failure)

    async def _write(self, writes: list[Write]) -> None:
        await self.transactions.run(_write, writes)

    def close(self) -> None:
        self.transactions.close()

    async def events(self, table_id: str, after_seq: int, limit: int) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            rows = (
                (
                    await conn.execute(
                        sa.select(table_events.c.body)
                        .where(table_events.c.table_id == table_id, table_events.c.seq > after_seq)
                        .order_by(table_events.c.seq)
                        .limit(limit)
                    )
                )
                .scalars()
                .all()
            )
        return [json.loads(row) for row in rows]

    async def hand(self, table_id: str, hand_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (
                (
                    await conn.execute(
                        sa.select(table_hands).where(
                            table_hands.c.table_id == table_id, table_hands.c.hand_id == hand_id
                        )
                    )
                )
                .mappings()
                .first()
            )
        return dict(row) if row else None

    async def hands(
        self, table_id: str, participant_id: str | None, limit: int, after: tuple[Any, ...] | None = None
    ) -> list[dict[str, Any]]:
        """Finished hands newest first (by end, then hand id), at most `limit`, strictly past the
        sort key `after` (ended_at, hand_id)."""
        query = sa.select(table_hands).where(table_hands.c.table_id == table_id)
        if participant_id:
            query = query.where(table_hands.c.participants.like(f'%"{participant_id}"%'))
        if after is not None:
            ended, hand_id = after
            query = query.where(
                (table_hands.c.ended_at < ended)
                | ((table_hands.c.ended_at == ended) & (table_hands.c.hand_id < hand_id))
            )
        query = query.order_by(table_hands.c.ended_at.desc(), table_hands.c.hand_id.desc()).limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [dict(row) for row in rows]


def _jsonable(value: Any) -> Any:
    """An event's values as JSON: a model (a turn's `TurnInfo`, kept as a model in the outbox so
    that rendering the event does not parse it back) as its JSON dump; anything else as text."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else str(value)


def _add_table(conn: sa.Connection, table_id: str, config: str, at: datetime, host_state: str | None) -> None:
    conn.execute(table_configs.insert().values(table_id=table_id, config=config, created_at=at, host_state=host_state))


def _save_hosted(conn: sa.Connection, table_id: str, config: str, host_state: str, closed: bool) -> None:
    conn.execute(
        table_configs.update()
        .where(table_configs.c.table_id == table_id)
        .values(config=config, host_state=host_state, closed=closed)
    )


#: built once: a statement built per write is a few reference cycles (its bind parameters) for
#: the garbage collector every hand
_ACK_ENDS = (
    table_hand_ends.update()
    .where(table_hand_ends.c.hand_id.in_(sa.bindparam("acked_ids", expanding=True)))
    .values(acked=True)
)


def _write(conn: sa.Connection, writes: list[Write]) -> None:
    """One transaction of many commands' writes (on SQLite in the store's own thread)."""
    rows = [
        {
            "table_id": event["table_id"],
            "seq": event["seq"],
            "hand_id": event.get("hand_id"),
            "body": json.dumps(event, default=_jsonable),
        }
        for write in writes
        for event in write.events
    ]
    hands = [{k: v for k, v in write.hand.items() if k != "results"} for write in writes if write.hand is not None]
    results = [row for write in writes if write.hand is not None for row in write.hand.get("results", ())]
    ends = [write.end for write in writes if write.end is not None]
    acked = [hand_id for write in writes for hand_id in write.acked]
    if rows:
        conn.execute(table_events.insert(), rows)
    if hands:
        conn.execute(table_hands.insert(), hands)
    if results:
        conn.execute(table_hand_results.insert(), results)
    if ends:
        conn.execute(table_hand_ends.insert(), ends)
    if acked:
        conn.execute(_ACK_ENDS, {"acked_ids": acked})
