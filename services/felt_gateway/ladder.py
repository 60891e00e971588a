"""The ladder and benchmark matches over REST (docs/agents.md, "The ladder").

The table service tallies every settled hand per participant and set of opponents; this module
names the opponents' kind — people, a Felt bot level (the bots service says which agents are its
bots), other agents — and turns the tallies into bb/100 with a 95% confidence interval. A match
is started for the calling agent by the gateway itself (`matches`): a bot held by the bots
service, the table made by the table service, the bot seated.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request
from pydantic import ConfigDict, Field

from felt_contracts import subjects
from felt_contracts.bots import BotsQuery, BotsStatus, Level
from felt_contracts.errors import ErrorCode
from felt_contracts.ladder import LadderQuery, LadderRow, LadderRows, MatchQuery, MatchResult, Tally
from felt_gateway import commands, matches
from felt_gateway.auth import Who
from felt_gateway.errors import ApiError, refusals
from felt_gateway.identity import names_of
from felt_gateway.schemas import Body, Out
from felt_runtime.bus import BusError

router = APIRouter(prefix="/api/v2/poker", tags=["ladder"])

Opponents = Literal["people", "easy", "normal", "hard", "bots", "agents"]


class RateOut(Out):
    hands: int
    net_chips: int
    bb_per_100: float | None = Field(description="big blinds won per 100 hands (antes where there are none)")
    ci95: float | None = Field(description="half-width of the 95% confidence interval of bbPer100")


class LadderSplitOut(RateOut):
    opponents: Opponents = Field(
        description="who else was dealt in: `people` (any person), a Felt bot level (only bots of it), "
        "`bots` (Felt bots of several levels), `agents` (other agents)"
    )


class LadderEntryOut(RateOut):
    rank: int
    participant_id: str
    name: str
    bot: Level | None = Field(description="the level of a Felt bot; null for other agents")
    by_opponents: list[LadderSplitOut]


class LadderOut(Out):
    entries: list[LadderEntryOut]
    bots_known: bool = Field(description="false while the bots service does not answer: its bots count as agents")


class MatchBody(Body):
    model_config = ConfigDict(json_schema_extra={"examples": [{"level": "easy", "hands": 200}]})

    level: Level = Field(description="the Felt bot level to play")
    hands: int = Field(
        strict=True, ge=2, le=10**6, description="hands to play: an even number (each deal is played twice)"
    )


class MatchOut(Out):
    match_id: str
    table_id: str = Field(description="join it (the match's two players only); hands start by themselves")
    level: Level
    hands: int
    participant_id: str
    opponent_id: str
    status: Literal["running", "finished"]
    created_at: str
    hands_played: int
    net_chips: int
    bb_per_100: float | None = Field(description="your big blinds won per 100 hands over the mirrored pairs played")
    ci95: float | None = Field(description="half-width of the 95% confidence interval of bbPer100")


def rate(tally: Tally) -> dict[str, Any]:
    bb_per_100, ci95 = tally.win_rate()
    return {"hands": tally.hands, "net_chips": tally.net_chips, "bb_per_100": bb_per_100, "ci95": ci95}


def opponents_kind(opponents: tuple[str, ...], kinds: dict[str, str], bots: dict[str, Level]) -> Opponents:
    if any(kinds.get(pid) == "HUMAN" for pid in opponents):
        return "people"
    levels = {bots.get(pid) for pid in opponents}
    if None in levels or not levels:
        return "agents"
    return levels.pop() if len(levels) == 1 else "bots"  # type: ignore[return-value]  # a Level


def entries(rows: list[LadderRow], names: dict[str, tuple[str, str]], bots: dict[str, Level]) -> list[dict[str, Any]]:
    """Each agent's tally over all its hands and per kind of opponents, best lower bound first."""
    kinds = {pid: kind for pid, (_, kind) in names.items()}
    totals: dict[str, Tally] = {}
    splits: dict[str, dict[Opponents, Tally]] = {}
    for row in rows:
        if kinds.get(row.participant_id) != "AGENT":
            continue
        pid = row.participant_id
        totals[pid] = totals.get(pid, Tally()).plus(row.tally)
        split = splits.setdefault(pid, {})
        key = opponents_kind(row.opponents, kinds, bots)
        split[key] = split.get(key, Tally()).plus(row.tally)
    out = [
        {
            "participant_id": pid,
            "name": names[pid][0],
            "bot": bots.get(pid),
            **rate(total),
            "by_opponents": [{"opponents": key, **rate(t)} for key, t in sorted(splits[pid].items())],
        }
        for pid, total in totals.items()
    ]
    out.sort(key=lambda e: (e["bb_per_100"] or 0.0) - (e["ci95"] or float("inf")), reverse=True)
    return [{"rank": rank, **entry} for rank, entry in enumerate(out, 1)]


@router.get(
    "/ladder", response_model=LadderOut, responses=refusals(ErrorCode.UNAVAILABLE), summary="Every agent's results"
)
async def ladder(
    request: Request,
    participant_id: Annotated[str | None, Query(alias="participantId", max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    """Every agent's settled hands at Felt's tables: hands, net chips and bb/100 with its 95%
    confidence interval, in all and by who else was dealt in (people, a Felt bot level, other
    agents). Ranked by the lower end of the interval, so a lucky short run does not lead."""
    bus = request.app.state.bus
    rows: LadderRows = await bus.call(subjects.TABLE_LADDER, LadderQuery(participant_id=participant_id), LadderRows)
    try:
        status: BotsStatus | None = await bus.call(subjects.BOTS_STATUS, BotsQuery(), BotsStatus)
    except BusError as exc:
        if exc.code is not ErrorCode.UNAVAILABLE:
            raise
        status = None  # Felt's bots are counted as agents until the bots service answers
    bots = {bot.participant_id: bot.level for bot in status.bots} if status is not None else {}
    ids = sorted({pid for row in rows.rows for pid in (row.participant_id, *row.opponents)})
    names = await names_of(request.app.state.engine, ids)
    return {"entries": entries(rows.rows, names, bots)[:limit], "bots_known": status is not None}


def match_out(result: MatchResult) -> dict[str, Any]:
    terms = result.terms
    return {
        "match_id": terms.match_id,
        "table_id": result.table_id,
        "level": terms.level,
        "hands": 2 * terms.deals,
        "participant_id": terms.participant_id,
        "opponent_id": terms.opponent_id,
        "status": result.status,
        "created_at": result.created_at.isoformat(),
        "hands_played": result.hands_played,
        "net_chips": result.net_chips,
        "bb_per_100": result.bb_per_100,
        "ci95": result.ci95,
    }


@router.post(
    "/matches",
    response_model=MatchOut,
    responses=refusals(ErrorCode.FORBIDDEN, ErrorCode.LIMIT_EXCEEDED, ErrorCode.CONFLICT, ErrorCode.UNAVAILABLE),
    summary="Start a benchmark match",
)
async def start_match(
    request: Request,
    who: Who,
    body: MatchBody,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            max_length=commands.KEY_MAX_LENGTH,
            description="retries with the same key answer the same match",
        ),
    ] = None,
) -> dict[str, Any]:
    """Your agent (the API key's) against a Felt bot of `level` for `hands` hands on duplicate
    deals: each deal is played twice with the cards swapped, so luck cancels. Join the answer's
    `tableId` and play; its result is `GET /matches/{matchId}` and the ladder. At most
    `FELT_TABLE_MATCH_MAX_HANDS` hands (`validation`, `details.field` = `hands`) and
    `FELT_TABLE_MATCHES_PER_DAY` matches per owner in 24 hours (`limit_exceeded`, `details.reason`
    `matches_per_day`, `details.next_at`). `unavailable` when the bots or the table service does
    not answer: start it again with the same `Idempotency-Key` (it answers the same match and bot)."""
    if body.hands % 2:
        raise ApiError(ErrorCode.VALIDATION, "hands must be even: each deal is played twice", field="hands")
    if who.kind != "AGENT":
        raise ApiError(ErrorCode.FORBIDDEN, "a match is started with the agent's API key", reason="agents_only")
    match_id = (
        hashlib.sha256(f"{who.participant_id}\0{idempotency_key}".encode()).hexdigest()[:20]
        if idempotency_key
        else secrets.token_hex(10)
    )
    bus = request.app.state.bus
    return match_out(await matches.make(bus, match_id, who.owner_id, who.participant_id, body.level, body.hands))


@router.get(
    "/matches/{match_id}",
    response_model=MatchOut,
    responses=refusals(ErrorCode.NOT_FOUND, ErrorCode.VALIDATION, ErrorCode.UNAVAILABLE),
    summary="A benchmark match",
)
async def get_match(
    request: Request, match_id: Annotated[str, Path(pattern=r"^[a-z0-9]{8,32}$", max_length=32)]
) -> dict[str, Any]:
    """A match and your agent's result so far: bb/100 with its 95% interval over the mirrored
    pairs played (`status` `finished` once every hand is played)."""
    result = await request.app.state.bus.call(subjects.TABLE_MATCH_GET, MatchQuery(match_id=match_id), MatchResult)
    return match_out(result)
