"""The ladder and benchmark matches on the bus: the players' tallies, a match's table (capped in
size and per owner per day) and its result over the mirrored pairs played (docs/agents.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.ladder import (
    CreateMatch,
    LadderQuery,
    LadderRows,
    MatchQuery,
    MatchResult,
    MatchTerms,
    Tally,
)
from felt_contracts.table import Admission, CreateTable, StartMode, TableConfig
from felt_runtime.bus import BusError, responder
from felt_table.ports import results
from felt_table.server.rooms import Rooms
from felt_table.settings import TableSettings

DAY = timedelta(days=1)


def match_config(terms: MatchTerms, settings: TableSettings) -> TableConfig:
    """A match's table: heads-up `nlhe-1` at the match stakes, both stacks the match depth, dealt
    automatically after a short pause, closed after the match's hands."""
    bb = settings.match_big_blind
    return TableConfig(
        table_id=results.MATCH_PREFIX + terms.match_id,
        name=f"Match against {terms.level}",
        rules_version="nlhe-1",
        small_blind=bb // 2,
        big_blind=bb,
        min_buy_in=settings.match_depth * bb,
        max_buy_in=settings.match_depth * bb,
        seats=2,
        admission=Admission.AGENTS_ONLY,
        start_mode=StartMode.AUTO,
        auto_rebuy=True,
        intermission_seconds=settings.match_intermission_seconds,
        max_hands=2 * terms.deals,
        match=terms,
    )


def aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


async def standing(rooms: Rooms, config: TableConfig, created_at: datetime) -> MatchResult:
    """The match as its settled hands stand: the agent's bb/100 over complete mirrored pairs."""
    terms = config.match
    assert terms is not None
    hands = await results.match_hands(rooms.deps.store.engine, config.table_id, terms.participant_id)
    units = [net / unit for net, unit in hands]
    pairs = [units[i] + units[i + 1] for i in range(0, len(units) - 1, 2)]
    tally = Tally(hands=2 * len(pairs), units=sum(pairs), units_sq=sum(pair * pair for pair in pairs))
    bb_per_100, ci95 = tally.win_rate(hands_per_sample=2)
    return MatchResult(
        terms=terms,
        table_id=config.table_id,
        status="finished" if len(hands) >= 2 * terms.deals else "running",
        created_at=aware(created_at),
        hands_played=len(hands),
        net_chips=sum(net for net, _ in hands),
        bb_per_100=bb_per_100,
        ci95=ci95,
    )


async def create(rooms: Rooms, req: CreateMatch) -> MatchResult:
    """The match's table; the same match id again answers the match as it stands, whichever bot
    the terms name (the gateway may hold another one for a retry: the table's bot plays it)."""
    terms, settings, engine = req.terms, rooms.deps.settings, rooms.deps.store.engine
    if 2 * terms.deals > settings.match_max_hands:
        raise BusError(
            ErrorCode.VALIDATION,
            f"a match has at most {settings.match_max_hands} hands",
            field="hands",
            max=settings.match_max_hands,
        )
    known = await results.match_config(engine, terms.match_id)
    if known is not None:
        config = TableConfig.model_validate_json(known[0])
        if config.match is None or config.match.model_copy(update={"opponent_id": terms.opponent_id}) != terms:
            raise BusError(ErrorCode.CONFLICT, "a match with this id has other terms", field="matchId")
        return await standing(rooms, config, known[1])
    now = datetime.now(UTC)
    started = sorted(
        aware(at) for raw, at in await results.matches_since(engine, now - DAY) if _owner(raw) == terms.owner_id
    )
    if len(started) >= settings.matches_per_day:
        raise BusError(
            ErrorCode.LIMIT_EXCEEDED,
            f"at most {settings.matches_per_day} matches per owner in 24 hours",
            reason="matches_per_day",
            cap=settings.matches_per_day,
            next_at=(started[-settings.matches_per_day] + DAY).isoformat(),
        )
    config = match_config(terms, settings)
    if rooms.replica is not None:
        await rooms.replica.create(CreateTable(config=config))
    else:
        await rooms.create(CreateTable(config=config))
    return await standing(rooms, config, now)


def _owner(raw: str) -> str | None:
    match = TableConfig.model_validate_json(raw).match
    return match.owner_id if match is not None else None


def register(broker: Any, rooms: Rooms) -> None:
    q = subjects.TABLE_QUEUE
    engine = rooms.deps.store.engine

    @responder(broker, subjects.TABLE_LADDER, LadderQuery, queue=q, concurrency=8)
    async def ladder(req: LadderQuery) -> LadderRows:
        """Every participant's settled hands, tallied per set of opponents (a read)."""
        return LadderRows(rows=await results.ladder(engine, req.participant_id))

    # creating a table changes the rooms across awaits, and an owner's count must see the last one
    @responder(broker, subjects.TABLE_MATCH_CREATE, CreateMatch, queue=q, concurrency=1)
    async def match_create(req: CreateMatch) -> MatchResult:
        """A benchmark match's table (the gateway, for the owner's agent and the bot it holds)."""
        return await create(rooms, req)

    @responder(broker, subjects.TABLE_MATCH_GET, MatchQuery, queue=q, concurrency=8)
    async def match_get(req: MatchQuery) -> MatchResult:
        """A match and its result so far (a read)."""
        known = await results.match_config(engine, req.match_id)
        if known is None:
            raise BusError(ErrorCode.NOT_FOUND, "no such match", field="matchId")
        return await standing(rooms, TableConfig.model_validate_json(known[0]), known[1])
