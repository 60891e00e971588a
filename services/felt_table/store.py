"""SQLAlchemy tables and queries (SQLite and PostgreSQL): created tables, events, hands."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

meta = sa.MetaData()
table_configs = sa.Table(
    "table_configs", meta,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("config", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
table_events = sa.Table(
    "table_events", meta,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("hand_id", sa.String(100)),
    sa.Column("body", sa.Text, nullable=False),
)
table_hands = sa.Table(
    "table_hands", meta,
    sa.Column("hand_id", sa.String(100), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("rules_version", sa.String(50), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("participants", sa.Text, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
)


class Store:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._pending: list[tuple[list[dict[str, Any]], dict[str, Any] | None, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def created_tables(self) -> list[str]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(table_configs.c.config))).scalars().all()
        return list(rows)

    async def add_table(self, table_id: str, config: str, at: datetime) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(table_configs.insert().values(table_id=table_id, config=config, created_at=at))

    async def last_seq(self, table_id: str) -> int:
        async with self.engine.connect() as conn:
            v = (await conn.execute(sa.select(sa.func.max(table_events.c.seq)).where(table_events.c.table_id == table_id))).scalar()
        return int(v or 0)

    async def write(self, events: list[dict[str, Any]], hand: dict[str, Any] | None = None) -> None:
        """Persist one command's events (and its finished hand, if any); returns once committed.

        Commands of different tables that flush while a transaction is in progress share the
        next one (group commit): with many tables the database sees one transaction per batch
        instead of one per command. Should a shared transaction fail, each command is written
        alone, so one bad write fails only its own command."""
        done = asyncio.get_running_loop().create_future()
        self._pending.append((events, hand, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await self._write([(e, h) for e, h, _ in batch])
                outcomes: list[BaseException | None] = [None] * len(batch)
            except Exception:  # noqa: BLE001 - retried one by one below
                outcomes = []
                for events, hand, _ in batch:
                    try:
                        await self._write([(events, hand)])
                        outcomes.append(None)
                    except Exception as exc:  # noqa: BLE001 - that command's own failure
                        outcomes.append(exc)
            for (_, _, done), exc in zip(batch, outcomes):
                if done.done():
                    continue
                if exc is None:
                    done.set_result(None)
                else:
                    done.set_exception(exc)

    async def _write(self, commands: list[tuple[list[dict[str, Any]], dict[str, Any] | None]]) -> None:
        rows = [{"table_id": e["table_id"], "seq": e["seq"], "hand_id": e.get("hand_id"),
                 "body": json.dumps(e, default=str)} for events, _ in commands for e in events]
        hands = [hand for _, hand in commands if hand is not None]
        async with self.engine.begin() as conn:
            if rows:
                await conn.execute(table_events.insert(), rows)
            if hands:
                await conn.execute(table_hands.insert(), hands)

    async def events(self, table_id: str, after_seq: int, limit: int) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(table_events.c.body).where(table_events.c.table_id == table_id, table_events.c.seq > after_seq)
                .order_by(table_events.c.seq).limit(limit))).scalars().all()
        return [json.loads(r) for r in rows]

    async def hand(self, table_id: str, hand_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(table_hands).where(
                table_hands.c.table_id == table_id, table_hands.c.hand_id == hand_id))).mappings().first()
        return dict(row) if row else None

    async def hands(self, table_id: str, participant_id: str | None, limit: int) -> list[dict[str, Any]]:
        q = sa.select(table_hands).where(table_hands.c.table_id == table_id)
        if participant_id:
            q = q.where(table_hands.c.participants.like(f'%"{participant_id}"%'))
        q = q.order_by(table_hands.c.ended_at.desc()).limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).mappings().all()
        return [dict(r) for r in rows]
