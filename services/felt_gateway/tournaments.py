"""Tournaments over REST (docs/tournaments.md, "For players and agents"): the list, one
tournament as its players see it (level and blinds, time to the next level, players left,
payouts, your place and your table), registering and unregistering. The tournament service
owns all of it; this module only names the caller and shapes the answers."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import Field

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.tournament import (
    TOURNAMENT_ID_PATTERN,
    GetTournament,
    ListTournaments,
    Register,
    Registration,
    TournamentList,
    TournamentStatus,
    TournamentView,
    Unregister,
)
from felt_gateway import commands
from felt_gateway.auth import Who
from felt_gateway.errors import refusals
from felt_gateway.identity import names_of
from felt_gateway.poker import IdemKey
from felt_gateway.schemas import Out

router = APIRouter(prefix="/api/v2/poker", tags=["tournaments"])

TournamentPath = Annotated[str, Path(pattern=TOURNAMENT_ID_PATTERN)]


class BlindsOut(Out):
    small_blind: int
    big_blind: int
    ante: int
    is_break: bool


class TournamentOut(Out):
    tournament_id: str
    name: str
    rules_version: str
    status: TournamentStatus
    buy_in: int = Field(description="paper chips; 0: a freeroll")
    starting_chips: int
    entrants: int
    max_entrants: int
    prize_pool: int
    starts_at: datetime | None = Field(description="null: a Sit & Go, which starts when full")
    level: int = Field(description="the level playing (1-based); 0 before the start and after the end")
    blinds: BlindsOut | None = Field(description="the level's forced bets (null when not playing)")
    level_ends_at: datetime | None
    players_left: int
    late_registration_level: int = Field(description="entries are taken through this level (0: until the start)")
    re_entries: int = Field(description="entries a player may buy after busting, while late registration is open")
    registration_open: bool = Field(
        description="it takes entries: before the start, or while late registration is open"
    )


class FinisherOut(Out):
    participant_id: str
    name: str = Field(description="the screen name (a person's) or the agent's name, as at the tables")
    place: int | None
    prize: int
    busted: bool = Field(description="eliminated; the places are given when the tournament ends")


class TournamentViewOut(TournamentOut):
    payouts: list[Decimal] = Field(description="the percent of the pool each paid place gets, for this field")
    tables: list[str]
    finishers: list[FinisherOut] = Field(description="every entry with its place and prize once placed")
    registered: bool = Field(description="you have an entry")
    your_place: int | None
    your_prize: int
    your_table: str | None = Field(description="the table you play at (your seat is taken: play it as any table)")


class RegistrationOut(Out):
    tournament_id: str
    status: str
    entrants: int
    prize_pool: int


class TournamentsOut(Out):
    tournaments: list[TournamentOut]


def summary(t: TournamentView) -> dict[str, Any]:
    d = t.definition
    level = d.levels[t.level - 1] if t.level else None
    return {
        "tournament_id": d.tournament_id,
        "name": d.name,
        "rules_version": d.rules_version,
        "status": t.status,
        "buy_in": d.buy_in,
        "starting_chips": d.starting_chips,
        "entrants": t.entrants,
        "max_entrants": d.max_entrants,
        "prize_pool": t.prize_pool,
        "starts_at": d.starts_at,
        "level": t.level,
        "blinds": None
        if level is None
        else {
            "small_blind": level.small_blind,
            "big_blind": level.big_blind,
            "ante": level.ante,
            "is_break": level.is_break,
        },
        "level_ends_at": t.level_ends_at,
        "players_left": t.players_left,
        "late_registration_level": d.late_registration_level,
        "re_entries": d.re_entries,
        "registration_open": t.status == "registering"
        or (t.status == "running" and max(t.level, 1) <= d.late_registration_level and t.players_left > 1),
    }


@router.get(
    "/tournaments", response_model=TournamentsOut, responses=refusals(ErrorCode.UNAVAILABLE), summary="Tournaments"
)
async def list_tournaments(
    request: Request, status: Annotated[list[TournamentStatus] | None, Query()] = None
) -> dict[str, Any]:
    """Every tournament (or those in `status`, repeatable): open ones take entries."""
    found = await request.app.state.bus.call(subjects.TOURNAMENT_LIST, ListTournaments(status=status), TournamentList)
    return {"tournaments": [summary(t) for t in found.tournaments]}


@router.get(
    "/tournaments/{tournament_id}",
    response_model=TournamentViewOut,
    responses=refusals(ErrorCode.NOT_FOUND, ErrorCode.VALIDATION, ErrorCode.UNAVAILABLE),
    summary="A tournament as you see it",
)
async def get_tournament(request: Request, who: Who, tournament_id: TournamentPath) -> dict[str, Any]:
    """Its level and blinds, when the level ends, players left, payouts, the finishers, and
    yours: whether you entered, your place and prize, and the table you play at."""
    t = await request.app.state.bus.call(
        subjects.TOURNAMENT_GET, GetTournament(tournament_id=tournament_id), TournamentView
    )
    mine = [e for e in t.entries if e.account_id == who.participant_id and e.status == "registered"]
    from_field = max(t.entrants, t.definition.min_entrants)
    tier = max((p for p in t.definition.payouts if p.min_entrants <= from_field), key=lambda p: p.min_entrants)
    field = [e for e in t.entries if e.status == "registered"]
    names = await names_of(request.app.state.engine, sorted({e.account_id for e in field}))
    return {
        **summary(t),
        "payouts": tier.percents,
        "tables": t.tables,
        "finishers": [
            {
                "participant_id": e.account_id,
                "name": names.get(e.account_id, (e.account_id, ""))[0],
                "place": e.place,
                "prize": e.prize,
                "busted": e.busted,
            }
            for e in field
        ],
        "registered": bool(mine),
        "your_place": mine[-1].place if mine else None,
        "your_prize": mine[-1].prize if mine else 0,
        "your_table": mine[-1].table_id if mine and not mine[-1].busted else None,
    }


def registration_out(r: Registration) -> dict[str, Any]:
    return {"tournament_id": r.tournament_id, "status": r.status, "entrants": r.entrants, "prize_pool": r.prize_pool}


@router.post(
    "/tournaments/{tournament_id}/register",
    response_model=RegistrationOut,
    responses=refusals(
        ErrorCode.NOT_FOUND,
        ErrorCode.VALIDATION,
        ErrorCode.ALREADY_REGISTERED,
        ErrorCode.TOURNAMENT_FULL,
        ErrorCode.REGISTRATION_CLOSED,
        ErrorCode.INSUFFICIENT_FUNDS,
        ErrorCode.LIMIT_EXCEEDED,
        ErrorCode.FROZEN,
        ErrorCode.UNAVAILABLE,
    ),
    summary="Register",
)
async def register(
    request: Request, who: Who, tournament_id: TournamentPath, idempotency_key: IdemKey = None
) -> dict[str, Any]:
    """Enter with the buy-in from your available chips (your limits apply); a Sit & Go starts
    when its last seat is taken, and you are seated at its table with the starting chips. While
    late registration is open (`registrationOpen`) a running tournament takes entries too, and a
    player who busted may enter again as many times as `reEntries` says; each entry is a buy-in."""
    req = Register(
        tournament_id=tournament_id,
        account_id=who.participant_id,
        owner_id=who.owner_id,
        credential_id=who.credential_id,
        kind="human" if who.kind == "HUMAN" else "agent",
        name=who.name[:50],
    )
    key = commands.message_id(who, f"register:{tournament_id}", idempotency_key)
    if key is not None:
        req = req.model_copy(update={"message_id": key})
    result = await request.app.state.bus.call(subjects.TOURNAMENT_REGISTER, req, Registration, timeout=30)
    return registration_out(result)


@router.delete(
    "/tournaments/{tournament_id}/register",
    response_model=RegistrationOut,
    responses=refusals(
        ErrorCode.NOT_FOUND,
        ErrorCode.VALIDATION,
        ErrorCode.NOT_REGISTERED,
        ErrorCode.TOURNAMENT_STARTED,
        ErrorCode.UNAVAILABLE,
    ),
    summary="Unregister",
)
async def unregister(request: Request, who: Who, tournament_id: TournamentPath) -> dict[str, Any]:
    """Leave before the start: the buy-in comes back."""
    req = Unregister(tournament_id=tournament_id, account_id=who.participant_id)
    result = await request.app.state.bus.call(subjects.TOURNAMENT_UNREGISTER, req, Registration, timeout=30)
    return registration_out(result)
