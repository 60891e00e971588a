"""Reading the players' hand results (`table_hand_results`) and the match tables' configs: the
ladder's tallies, a match's hands in order, an owner's recent matches."""

from __future__ import annotations

from datetime import datetime
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts.ladder import LadderRow, Tally
from felt_table.ports.store import table_configs, table_hand_results as results

#: a match's table id: this prefix and the match id
MATCH_PREFIX = "match-"


async def ladder(engine: AsyncEngine, participant_id: str | None) -> list[LadderRow]:
    """Per participant and set of opponents: hands, net chips, and the sums of each hand's
    result in big blinds and of its square (so that tallies merge and give an interval)."""
    units = sa.cast(results.c.net, sa.Float) / results.c.unit
    query = sa.select(
        results.c.participant_id,
        results.c.opponents,
        sa.func.count(),
        sa.func.sum(results.c.net),
        sa.func.sum(units),
        sa.func.sum(units * units),
    ).group_by(results.c.participant_id, results.c.opponents)
    if participant_id is not None:
        query = query.where(results.c.participant_id == participant_id)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [
        LadderRow(
            participant_id=pid,
            opponents=tuple(opponents.split(",")) if opponents else (),
            tally=Tally(hands=hands, net_chips=int(net), units=float(total), units_sq=float(squares)),
        )
        for pid, opponents, hands, net, total, squares in rows
    ]


async def match_hands(engine: AsyncEngine, table_id: str, participant_id: str) -> list[tuple[int, int]]:
    """(net chips, big blind) of each settled hand of the participant at the table, in order."""
    query = (
        sa.select(results.c.net, results.c.unit)
        .where(results.c.table_id == table_id, results.c.participant_id == participant_id)
        .order_by(results.c.ended_at, results.c.hand_id)
    )
    async with engine.connect() as conn:
        return [(int(net), int(unit)) for net, unit in (await conn.execute(query)).all()]


async def match_config(engine: AsyncEngine, match_id: str) -> tuple[str, datetime] | None:
    """The stored config (JSON) of a match's table and when it was created."""
    query = sa.select(table_configs.c.config, table_configs.c.created_at).where(
        table_configs.c.table_id == MATCH_PREFIX + match_id
    )
    async with engine.connect() as conn:
        row = (await conn.execute(query)).first()
    return (row[0], row[1]) if row else None


async def matches_since(engine: AsyncEngine, since: datetime) -> list[tuple[str, datetime]]:
    """(config JSON, created at) of the match tables created since `since`."""
    query = sa.select(table_configs.c.config, table_configs.c.created_at).where(
        table_configs.c.table_id.like(MATCH_PREFIX + "%"), table_configs.c.created_at >= since
    )
    async with engine.connect() as conn:
        return [(config, at) for config, at in (await conn.execute(query)).all()]
