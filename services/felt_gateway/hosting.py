"""Tables players create and host (docs/rules.md "Hosting a table"; docs/gateway.md "Hosted
tables"): creating one, invites to a private one, and the host's controls. The gateway makes
invite codes and sends the table service only their hash; the table service checks the
configuration against the profile, the owner's bound on open tables and who the host is."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import Path, Request
from fastapi.responses import JSONResponse
from pydantic.alias_generators import to_camel

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.bots import AddBots, BotsStatus, RemoveBot
from felt_contracts.table import (
    PARTICIPANT_ID_MAX_LENGTH,
    CreateTable,
    Host,
    HostControl,
    ListTables,
    StartMode,
    TableConfig,
    TableList,
    TableSummary,
    Visibility,
    invite_hash,
)
from felt_engine.errors import ConfigError
from felt_engine.profiles import RulesProfile, get_profile
from felt_gateway import commands
from felt_gateway.errors import ApiError, refusals
from felt_gateway.identity import Principal
from felt_gateway.auth import Who
from felt_gateway.poker import BUS, TABLE, IdemKey, bus, lobby_entry, router
from felt_gateway.schemas import (
    BlindsBody,
    BotBody,
    BotOut,
    CreatedTableOut,
    CreateTableBody,
    HostControlOut,
    InvitedTableOut,
    InviteOut,
    ParticipantBody,
    RevokedOut,
)
from felt_runtime.bus import BusError

#: usual stakes of a table whose creator names none: blinds 1/2, draw's ante 4
USUAL_BIG_BLIND, USUAL_ANTE = 2, 4


def new_code() -> str:
    """An invite code: 128 random bits, URL-safe (the table service keeps only its hash)."""
    return secrets.token_urlsafe(16)


def invite_out(code: str) -> dict[str, str]:
    return {"inviteCode": code, "inviteUrl": f"/t/{code}"}


def field_named(exc: BusError) -> BusError:
    """A refusal naming a configuration field names it as the REST body does (camelCase)."""
    field = exc.details.get("field")
    if isinstance(field, str):
        return BusError(exc.code, exc.message, **{**exc.details, "field": to_camel(field)})
    return exc


def config_of(body: CreateTableBody, who: Principal, table_id: str) -> TableConfig:
    """The table's configuration: what the body names, the profile's usual stakes for the rest."""
    try:
        profile = get_profile(body.rules_version)
    except ConfigError as exc:
        raise ApiError(ErrorCode.MALFORMED, exc.message, field="rulesVersion") from None
    stakes = usual_stakes(profile, body)
    closes_at = (
        datetime.now(UTC) + timedelta(minutes=body.closes_in_minutes) if body.closes_in_minutes is not None else None
    )
    return TableConfig(
        table_id=table_id,
        name=body.name or f"{who.name or 'A player'}'s table",
        rules_version=body.rules_version,
        structure=body.structure,
        seats=body.seats if body.seats is not None else min(6, profile.max_seats),
        admission=body.admission,
        start_mode=StartMode(body.start_mode.lower()),
        auto_rebuy=body.auto_rebuy,
        turn_seconds=body.turn_seconds,
        max_hands=body.max_hands,
        closes_at=closes_at,
        host_id=who.participant_id,
        host_owner=who.owner_id,
        visibility=body.visibility,
        approval=body.approval,
        **stakes,
    )


def usual_stakes(profile: RulesProfile, body: CreateTableBody) -> dict[str, Any]:
    """The body's stakes, each omitted one taken from the profile's usual table."""
    big = body.big_blind if body.big_blind is not None else (USUAL_BIG_BLIND if profile.blinds else 0)
    small = body.small_blind if body.small_blind is not None else (max(1, big // 2) if profile.blinds else 0)
    ante = (
        body.ante
        if body.ante is not None
        else (profile.fixed_ante or (USUAL_ANTE if profile.ante == "required" else 0))
    )
    stakes: dict[str, Any] = {"small_blind": small, "big_blind": big, "ante": ante}
    if profile.money == "buy_in":
        unit = max(1, big if profile.buy_in_unit == "big_blind" else ante)
        lo = body.min_buy_in if body.min_buy_in is not None else 20 * unit if profile.blinds else unit
        hi = body.max_buy_in if body.max_buy_in is not None else (profile.max_buy_in_units or 100) * unit
        stakes |= {"min_buy_in": lo, "max_buy_in": hi}
    else:
        stakes |= {"min_buy_in": body.min_buy_in, "max_buy_in": body.max_buy_in}
    return stakes


def table_id_for(who: Principal, key: str | None) -> str:
    """A new table's id; with an `Idempotency-Key`, the same one for every retry of the request."""
    if key is None:
        return "h" + secrets.token_hex(8)
    return "h" + hashlib.sha256(f"{who.participant_id}:{key}".encode()).hexdigest()[:16]


@router.post(
    "/tables",
    status_code=201,
    response_model=CreatedTableOut,
    summary="Create and host a table",
    responses={
        200: {"description": "a retry with the same `Idempotency-Key`: the table it made (`replayed`)"},
        **refusals(*BUS, ErrorCode.MALFORMED, ErrorCode.CONFLICT, ErrorCode.TOO_MANY_TABLES),
    },
)
async def create_table(request: Request, body: CreateTableBody, who: Who, idempotency_key: IdemKey = None) -> Any:
    """Any signed-in owner or agent opens a table and hosts it: the game (`rulesVersion`,
    `structure`), stakes, seats, buy-in range and turn time within the profile's rules,
    admission, start mode, auto-rebuy, an optional limit (`maxHands` or `closesInMinutes`),
    `visibility` and `approval`. A private table answers its `inviteCode` (only here and when
    rotated: the room keeps its hash). A retry with the same `Idempotency-Key` answers the table
    it made (without the code: rotate it to get a new one)."""
    table_id = table_id_for(who, idempotency_key)
    config = config_of(body, who, table_id)
    code = new_code() if config.visibility is Visibility.PRIVATE else None
    create = CreateTable(config=config, invite_hash=invite_hash(code) if code else None)
    try:
        summary = await bus(request).call(subjects.TABLE_CREATE, create, TableSummary)
    except BusError as exc:
        if exc.code is ErrorCode.CONFLICT and idempotency_key is not None:
            return await _replayed(request, who, table_id)
        raise field_named(exc) from None
    return JSONResponse(
        {"table": lobby_entry(summary), **(invite_out(code) if code else {}), "replayed": False}, status_code=201
    )


async def _replayed(request: Request, who: Principal, table_id: str) -> JSONResponse:
    hosted: TableList = await bus(request).call(subjects.TABLE_LIST, ListTables(host_id=who.participant_id), TableList)
    mine = next((t for t in hosted.tables if t.config.table_id == table_id), None)
    if mine is None:
        raise ApiError(
            ErrorCode.CONFLICT, "this Idempotency-Key was used for another table", reason="idempotency_key_reused"
        )
    return JSONResponse({"table": lobby_entry(mine), "replayed": True}, headers={"Idempotent-Replayed": "true"})


@router.get(
    "/invites/{code}",
    response_model=InvitedTableOut,
    responses=refusals(*BUS, ErrorCode.INVITE_INVALID),
    summary="The table an invite opens",
)
async def invited(request: Request, code: str, who: Who) -> dict[str, Any]:
    """The table behind an invite code (the page `/t/<code>` asks this). `invite_invalid` when the
    code is wrong or was revoked."""
    if len(code) > 64:
        raise ApiError(ErrorCode.INVITE_INVALID, "this invite code is wrong or was revoked")
    found: TableList = await bus(request).call(
        subjects.TABLE_LIST, ListTables(invite_hash=invite_hash(code)), TableList
    )
    if not found.tables:
        raise ApiError(ErrorCode.INVITE_INVALID, "this invite code is wrong or was revoked")
    table = found.tables[0]
    return {"tableId": table.config.table_id, "table": lobby_entry(table)}


async def control(
    request: Request, who: Principal, table_id: str, name: HostControl, key: str | None, **fields: Any
) -> dict[str, Any]:
    """Send the host's control `name` to the table (once per `Idempotency-Key`)."""
    command = Host(participant_id=who.participant_id, credential_id=who.credential_id, control=name, **fields)
    try:
        result = await bus(request).table(table_id, command, message_id=commands.message_id(who, f"host-{name}", key))
    except BusError as exc:
        raise field_named(exc) from None
    return {"applied": result.status, "seq": result.seq}


#: what every host control may answer (besides what its request implies); one with a body (or,
#: rotating the invite, a new code each time) lists `conflict` too: its Idempotency-Key reused
#: for another request
HOST = (*TABLE, ErrorCode.NOT_HOST, ErrorCode.TABLE_CLOSED)


@router.post(
    "/tables/{table_id}/invite",
    response_model=InviteOut,
    summary="Make a new invite code",
    responses=refusals(*HOST, ErrorCode.CONFLICT),
)
async def rotate_invite(request: Request, table_id: str, who: Who, idempotency_key: IdemKey = None) -> dict[str, Any]:
    """The host makes a new invite code; the old one stops working, and players the host
    removed may sit again with it."""
    code = new_code()
    await control(request, who, table_id, "invite", idempotency_key, invite_hash=invite_hash(code))
    return invite_out(code)


@router.delete(
    "/tables/{table_id}/invite", response_model=RevokedOut, summary="Revoke the invite code", responses=refusals(*HOST)
)
async def revoke_invite(request: Request, table_id: str, who: Who) -> dict[str, Any]:
    """The host revokes the invite code: it stops working (those seated stay)."""
    await control(request, who, table_id, "revoke", None)
    return {"revoked": True}


def _route(name: HostControl, summary: str, doc: str, route: Any, *codes: ErrorCode) -> None:
    """Publish `route` as POST /tables/{id}/host/<name> (`codes`: what it answers besides `HOST`)."""
    route.__doc__ = doc
    route.__name__ = f"host_{name}"
    router.post(
        f"/tables/{{table_id}}/host/{name}",
        response_model=HostControlOut,
        summary=summary,
        responses=refusals(*HOST, *codes),
    )(route)


def _simple(name: HostControl, summary: str, doc: str) -> None:
    """A host control without a body."""

    async def route(request: Request, table_id: str, who: Who, idempotency_key: IdemKey = None) -> dict[str, Any]:
        return await control(request, who, table_id, name, idempotency_key)

    _route(name, summary, doc, route)


def _about(name: HostControl, summary: str, doc: str, *codes: ErrorCode) -> None:
    """A host control about one participant (body `{participantId}`)."""

    async def route(
        request: Request, table_id: str, body: ParticipantBody, who: Who, idempotency_key: IdemKey = None
    ) -> dict[str, Any]:
        return await control(request, who, table_id, name, idempotency_key, participant=body.participant_id)

    _route(name, summary, doc, route, ErrorCode.CONFLICT, *codes)


_simple("pause", "Pause dealing", "No hand is dealt until the host resumes (a hand in progress plays to its end).")
_simple("resume", "Resume dealing", "Hands are dealt again.")
_simple(
    "close",
    "Close the table",
    "The hand in progress finishes, every seat is cashed out, and the table closes for good.",
)
_about(
    "approve",
    "Approve a request to sit",
    "The player takes a seat (and buys in) now; a refusal of the seat drops the request.",
    ErrorCode.ADMISSION,
    ErrorCode.ALREADY_SEATED,
    ErrorCode.CHIPS_IN_PLAY,
    ErrorCode.TABLE_FULL,
    ErrorCode.INSUFFICIENT_FUNDS,
    ErrorCode.INVALID_AMOUNT,
    ErrorCode.LIMIT_EXCEEDED,
    ErrorCode.FROZEN,
)
_about("decline", "Decline a request to sit", "The request is dropped; nothing moved.")
_about(
    "remove",
    "Remove a player",
    "The player leaves as if they had left (a hand in progress by the profile's policy) and is "
    "cashed out once; they may not sit here again until the host makes a new invite code.",
)


@router.post(
    "/tables/{table_id}/host/blinds",
    response_model=HostControlOut,
    summary="Change the blinds/ante",
    responses=refusals(*HOST, ErrorCode.CONFLICT, ErrorCode.MALFORMED),
)
async def host_blinds(
    request: Request, table_id: str, body: BlindsBody, who: Who, idempotency_key: IdemKey = None
) -> dict[str, Any]:
    """The forced bets from the next hand on (`blinds_changed` says from which); the buy-in range
    keeps its size in big blinds (antes). Values outside the profile's rules: `malformed` with
    `details.field`."""
    return await control(
        request,
        who,
        table_id,
        "blinds",
        idempotency_key,
        small_blind=body.small_blind,
        big_blind=body.big_blind,
        ante=body.ante,
        ante_mode=body.ante_mode,
    )


@router.post(
    "/tables/{table_id}/host/bots",
    status_code=201,
    response_model=BotOut,
    summary="Seat a Felt bot",
    responses=refusals(*HOST),
)
async def add_bot(request: Request, table_id: str, body: BotBody, who: Who) -> dict[str, Any]:
    """A Felt bot of `level` takes an empty seat (it plays through this API like any agent; at a
    private or approval table the table gives it a pass of its own). Its `participantId` names it
    for `DELETE .../host/bots/{participantId}`."""
    code = new_code()
    await control(request, who, table_id, "bot_pass", None, invite_hash=invite_hash(code))
    added = AddBots(table_id=table_id, level=body.level, count=1, invite_code=code)
    status: BotsStatus = await bus(request).call(subjects.BOTS_ADD, added, BotsStatus, timeout=30)
    bot = status.bots[0]
    return {"participantId": bot.participant_id, "name": bot.name, "level": bot.level}


@router.delete(
    "/tables/{table_id}/host/bots/{participant_id}",
    response_model=HostControlOut,
    summary="Remove a Felt bot",
    responses=refusals(*HOST, ErrorCode.VALIDATION),
)
async def remove_bot(
    request: Request,
    table_id: str,
    participant_id: Annotated[str, Path(min_length=1, max_length=PARTICIPANT_ID_MAX_LENGTH)],
    who: Who,
) -> dict[str, Any]:
    """The bot leaves (cashed out like any leave; during a hand, once it ends) and stops."""
    done = await control(request, who, table_id, "remove_bot", None, participant=participant_id)
    try:
        await bus(request).call(
            subjects.BOTS_REMOVE, RemoveBot(table_id=table_id, participant_id=participant_id), BotsStatus
        )
    except BusError:  # gone already, or the bots service is away: the table refuses the bot's return
        pass
    return done
