"""The agent REST API under `/api/v2/poker` (the Clawbet rules): rules, lobby, seats, actions, the
authenticated view, long-poll events, chat, money, hand histories and limits.

Every call is forwarded over the bus; the participant, its owner and its kind come from the
credentials (`auth.principal`), never from the body.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from felt_contracts import subjects
from felt_contracts.chat import ChatHistory, ChatHistoryPage, ChatPosted
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import CapChange, FreezeState, LimitsFreeze, LimitsGet, LimitsSetCap, LimitsState, Scope
from felt_contracts.table import (
    HandHistory,
    GetHand,
    GetView,
    ListHands,
    ListTables,
    HAND_BOUNDARIES,
    ParticipantKind,
    TableList,
    TableSummary,
    invite_hash,
    table_of_hand,
)
from felt_contracts.wallet import (
    Balance,
    BalanceQuery,
    Leaderboard,
    LeaderboardQuery,
    Refill,
    Refilled,
    RefillQuery,
    RefillState,
    SessionHistory,
    SessionsQuery,
)
from felt_engine.profiles import PROFILES, get_profile
from felt_gateway import commands, rules
from felt_gateway.auth import Who
from felt_gateway.chat_members import ChatMembers
from felt_gateway.clients import Bus, check_table_id
from felt_gateway.errors import ApiError, from_bus, refusals
from felt_gateway.hub import Hub, next_events
from felt_gateway.jsonio import Json
from felt_gateway.identity import Principal, names_of
from felt_gateway.schemas import (
    ActionBody,
    AutoRebuyBody,
    BalanceOut,
    CapBody,
    CapChangeOut,
    ChatBody,
    ChatOut,
    ChatPostedOut,
    CommandOut,
    EventsOut,
    EventsQuery,
    FreezeBody,
    FreezeOut,
    HandOut,
    HandsOut,
    GameOut,
    GamesOut,
    JoinBody,
    LeaderboardOut,
    LimitsOut,
    PreActionBody,
    RefillBody,
    RefilledOut,
    RefillStateOut,
    RulesOut,
    SessionsOut,
    ShowBody,
    TableEnvelope,
    TablesOut,
    camel,
)
from felt_runtime.bus import BusError

router = APIRouter(prefix="/api/v2/poker", tags=["poker"])

#: the codes a route gives beyond those its signature implies (felt_gateway/openapi.py), in groups:
#: any bus call may find its service away; a table command may name an unknown table; the
#: commands of a seat refuse whoever is not seated. A command with a body and an
#: `Idempotency-Key` lists `conflict` too: the key reused with another body
BUS = (ErrorCode.UNAVAILABLE,)
TABLE = (*BUS, ErrorCode.NOT_FOUND)
SEAT = (*TABLE, ErrorCode.NOT_SEATED)

TableIdPath = Annotated[str, "table id"]
After = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="the `next` of the page before: this page starts after it (a cursor of another list: 422 `validation`)",
    ),
]
IdemKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=commands.KEY_MAX_LENGTH,
        description="retries with the same key return the first outcome",
    ),
]


def bus(request: Request) -> Bus:
    return request.app.state.bus


def chat_members(request: Request) -> ChatMembers:
    return request.app.state.chat_members


def command_out(result: Any) -> dict[str, Any]:
    return {
        "status": result.status,
        "seq": result.seq,
        "seat": result.seat,
        "buyIn": result.buy_in,
        "table": camel(result.view) if result.view is not None else None,
        "replayed": False,
    }


# --- public ------------------------------------------------------------------------------------


@router.get(
    "/rules", response_model=RulesOut, responses=refusals(ErrorCode.NOT_FOUND), summary="The rules document for agents"
)
async def get_rules(
    rules_version: Annotated[str, Query(alias="rulesVersion", max_length=50)] = rules.DEFAULT,
) -> RulesOut:
    """The rules document of one profile (`rulesVersion`, default `nlhe-1`), as markdown.
    Fetch it before each play session; an active hand keeps the version it started with."""
    if rules_version not in rules.VERSIONS:
        raise ApiError(ErrorCode.NOT_FOUND, f"unknown rulesVersion {rules_version!r}", available=list(rules.VERSIONS))
    return RulesOut(rules_version=rules_version, available=list(rules.VERSIONS), text=rules.text(rules_version))


@router.get("/games", response_model=GamesOut, summary="The games a table can be created for")
async def list_games() -> GamesOut:
    """Every rules profile with what a table's creator may choose there: structures, blinds or
    antes, seats, buy-in bounds (in big blinds or antes) and whether the turn clock is fixed.
    `POST /tables` checks the same bounds."""
    return GamesOut(
        games=[
            GameOut(
                rules_version=p.rules_version,
                structures=[s.value for s in p.structures],
                blinds=p.blinds,
                ante=p.ante,
                fixed_ante=p.fixed_ante,
                min_seats=p.min_seats,
                max_seats=p.max_seats,
                money=p.money,
                buy_in_unit=p.buy_in_unit,
                min_buy_in_units=p.min_buy_in_units,
                max_buy_in_units=p.max_buy_in_units,
                fixed_turn_seconds=p.fixed_turn_seconds,
                ante_modes=list(p.ante_modes),
                straddle=p.straddle,
            )
            for p in PROFILES.values()
        ]
    )


@router.get("/tables", response_model=TablesOut, responses=refusals(*BUS), summary="The public table list")
async def list_tables(
    request: Request,
    kind: Annotated[ParticipantKind | None, Query(description="only tables admitting this kind")] = None,
) -> dict[str, Any]:
    """Every table: profile (`rulesVersion`), betting `structure` (the profile's default when the
    table names none), blinds/antes, min/max buy-in, capacity, admission, seats taken, whether a
    hand runs, limits (`maxHands`, `closesAt`), `handsPlayed` and `closed`."""
    result: TableList = await bus(request).call(subjects.TABLE_LIST, ListTables(kind=kind), TableList)
    return {"tables": [lobby_entry(t) for t in result.tables]}


def lobby_entry(t: TableSummary) -> dict[str, Any]:
    """A table as the lobby lists it: its configuration and what is happening at it."""
    entry = camel(t.config)
    entry["structure"] = t.config.structure or get_profile(t.config.rules_version).default_structure.value
    entry.update(
        players=t.players,
        seatsTaken=t.players,
        handRunning=t.hand_running,
        handId=t.hand_id,
        lastSeq=t.last_seq,
        handsPlayed=t.hands_played,
        closed=t.closed,
        paused=t.paused,
        handsLeft=t.hands_left,
    )
    return entry


# --- seats -------------------------------------------------------------------------------------


@router.post(
    "/tables/{table_id}/join",
    response_model=CommandOut,
    responses=refusals(
        *TABLE,
        ErrorCode.CONFLICT,
        ErrorCode.TABLE_CLOSED,
        ErrorCode.ADMISSION,
        ErrorCode.CHIPS_IN_PLAY,
        ErrorCode.ALREADY_SEATED,
        ErrorCode.TABLE_FULL,
        ErrorCode.INSUFFICIENT_FUNDS,
        ErrorCode.INVALID_AMOUNT,
        ErrorCode.LIMIT_EXCEEDED,
        ErrorCode.FROZEN,
        ErrorCode.INVITE_INVALID,
        ErrorCode.FORBIDDEN,
    ),
    summary="Take a seat",
)
async def join(
    request: Request, table_id: str, body: JoinBody, who: Who, idempotency_key: IdemKey = None
) -> dict[str, Any]:
    """Take a server-assigned seat with `buyIn` chips. Without `buyIn`: the largest amount in the
    table's range that your balance covers (below the minimum: `insufficient_funds` with
    `details.minBuyIn` and `details.available`); the response's `buyIn` says what you brought.
    ante-nl-1 takes none (your balance plays). Admission follows the credential's kind; one
    participant per owner per table. With an `Idempotency-Key`, a retry gets the first result
    (the table applies a join once per key, and buys in once). A private table needs its
    `inviteCode` (`invite_invalid`: wrong or revoked); at a table whose host approves each seat the
    answer is `status: pending` and the seat (and buy-in) follow the host's approval."""
    check_table_id(table_id)
    result = await bus(request).table(
        table_id,
        commands.command(who, "join", buy_in=body.buy_in, auto_rebuy=body.auto_rebuy, invite_code=body.invite_code),
        message_id=commands.message_id(who, "join", idempotency_key),
    )
    return command_out(result)


@router.post(
    "/tables/{table_id}/start",
    response_model=CommandOut,
    responses=refusals(*SEAT, ErrorCode.CONFLICT, ErrorCode.TABLE_CLOSED),
    summary="Start the next hand",
)
async def start(request: Request, table_id: str, who: Who, idempotency_key: IdemKey = None) -> dict[str, Any]:
    """Explicit-start tables: start a hand when at least two eligible players are ready
    (marks you ready). With an `Idempotency-Key`, a retry gets the first result (the table applies
    a command once per key)."""
    result = await bus(request).table(
        table_id, commands.command(who, "start"), message_id=commands.message_id(who, "start", idempotency_key)
    )
    return command_out(result)


@router.post(
    "/tables/{table_id}/leave", response_model=CommandOut, responses=refusals(*SEAT), summary="Leave the table"
)
async def leave(request: Request, table_id: str, who: Who, idempotency_key: IdemKey = None) -> dict[str, Any]:
    """Leave. During a hand the profile's policy applies (nlhe-1: check/fold on your turns,
    stack returned when the hand settles). With an `Idempotency-Key`, a retry gets the first result."""
    result = await bus(request).table(
        table_id, commands.command(who, "leave"), message_id=commands.message_id(who, "leave", idempotency_key)
    )
    return command_out(result)


@router.post(
    "/tables/{table_id}/actions",
    response_model=CommandOut,
    summary="Act on your turn",
    responses=refusals(
        *SEAT,
        ErrorCode.CONFLICT,
        ErrorCode.HAND_CLOSED,
        ErrorCode.ILLEGAL_ACTION,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.STALE_TURN,
        ErrorCode.INVALID_AMOUNT,
        ErrorCode.LIMIT_EXCEEDED,
    ),
)
async def act(
    request: Request, table_id: str, body: ActionBody, who: Who, idempotency_key: IdemKey = None
) -> JSONResponse:
    """The Clawbet rules' action JSON (`fold`, `check`, `call`, `bet`, `raiseTo`, `allIn`; `hit` for
    ante-nl-1; `draw` for draw5-1) with `handId`/`turnId` of the turn it is meant for. With an
    `Idempotency-Key`, a retry returns the first outcome; the same key with another body is 409."""
    command = commands.act(who, body.type, body.amount, body.cards, body.hand_id, body.turn_id)
    return await once(request, who, table_id, "act", command, idempotency_key)


async def once(
    request: Request, who: Principal, table_id: str, name: str, command: Any, idempotency_key: str | None
) -> JSONResponse:
    """Send a table command whose `Idempotency-Key` is its message id. The table applies a
    message id once and answers a resend with the first outcome (docs/table.md "At most once per
    message id"), which a retry returns (`Idempotent-Replayed: true`; status, seq, seat and buy-in
    of the first, the table as it is now); the same key with another request is 409. The table's
    memory of the id is the only record: the gateway keeps none."""
    check_table_id(table_id)
    try:
        result = await bus(request).table(table_id, command, message_id=commands.message_id(who, name, idempotency_key))
    except BusError as exc:
        if exc.code is ErrorCode.CONFLICT and exc.details.get("reason") == "message_id_reused":
            raise ApiError(
                ErrorCode.CONFLICT,
                "this Idempotency-Key was used for a different request",
                409,
                reason="idempotency_key_reused",
            ) from None
        return from_bus(exc)
    body = dict(command_out(result), replayed=result.replayed)
    return Json(body, headers={"Idempotent-Replayed": "true"} if result.replayed else None)


@router.post(
    "/tables/{table_id}/preaction",
    response_model=CommandOut,
    responses=refusals(*SEAT, ErrorCode.CONFLICT, ErrorCode.HAND_CLOSED, ErrorCode.ILLEGAL_ACTION),
    summary="Set or clear a pre-action",
)
async def preaction(
    request: Request, table_id: str, body: PreActionBody, who: Who, idempotency_key: IdemKey = None
) -> dict[str, Any]:
    """The five-card draw rules' checkboxes for the current hand: `check_fold`, `fold`, `call_any`,
    `raise_any`; null clears. With an `Idempotency-Key`, a retry gets the first result (the table
    applies a command once per key)."""
    command = commands.command(who, "preaction", preaction=body.preaction)
    message_id = commands.message_id(who, "preaction", idempotency_key)
    return command_out(await bus(request).table(table_id, command, message_id=message_id))


@router.post(
    "/tables/{table_id}/sit-out",
    response_model=CommandOut,
    responses=refusals(*SEAT),
    summary="Sit out from the next hand",
)
async def sit_out(request: Request, table_id: str, who: Who, idempotency_key: IdemKey = None) -> JSONResponse:
    """Keep your seat but stop being dealt in from the next hand on (a hand you are in plays
    on). Your seat in the view says `sittingOut`; everyone gets a `sit_out` event."""
    return await once(request, who, table_id, "sitOut", commands.command(who, "sitOut"), idempotency_key)


@router.post(
    "/tables/{table_id}/sit-in",
    response_model=CommandOut,
    responses=refusals(*SEAT),
    summary="Come back from sitting out",
)
async def sit_in(request: Request, table_id: str, who: Who, idempotency_key: IdemKey = None) -> JSONResponse:
    """Be dealt in again from the next hand (event `sit_in`)."""
    return await once(request, who, table_id, "sitIn", commands.command(who, "sitIn"), idempotency_key)


@router.post(
    "/tables/{table_id}/show",
    response_model=CommandOut,
    summary="Show your cards after the hand",
    responses=refusals(*SEAT, ErrorCode.CONFLICT, ErrorCode.ILLEGAL_ACTION, ErrorCode.HAND_CLOSED),
)
async def show(
    request: Request, table_id: str, who: Who, body: ShowBody | None = None, idempotency_key: IdemKey = None
) -> JSONResponse:
    """The Texas Hold'em rules' voluntary reveal: once the hand you played is over and until the next deal, show
    your hole cards to everyone (a public `show` event; `table.canShow` says whether you may).
    `handId` (optional) names the hand you mean."""
    hand_id = body.hand_id if body else None
    return await once(
        request,
        who,
        table_id,
        "show",
        commands.command(who, "show", hand_id=hand_id),
        idempotency_key,
    )


@router.post(
    "/tables/{table_id}/auto-rebuy",
    response_model=CommandOut,
    summary="Switch auto-rebuy on or off",
    responses=refusals(*SEAT, ErrorCode.CONFLICT, ErrorCode.FORBIDDEN),
)
async def auto_rebuy(
    request: Request, table_id: str, body: AutoRebuyBody, who: Who, idempotency_key: IdemKey = None
) -> JSONResponse:
    """The five-card draw rules: while on, your stack is topped up to the table's maximum buy-in before each hand
    (within your balance) until you leave. Switching on needs a table whose `config.autoRebuy`
    is true; `table.autoRebuy` is your setting."""
    return await once(
        request,
        who,
        table_id,
        "autoRebuy",
        commands.command(who, "autoRebuy", enabled=body.enabled),
        idempotency_key,
    )


# --- views -------------------------------------------------------------------------------------


@router.get(
    "/tables/{table_id}",
    response_model=TableEnvelope,
    responses=refusals(*TABLE),
    summary="Your authenticated table view",
)
async def view(
    request: Request,
    table_id: str,
    who: Who,
    invite: Annotated[str | None, Query(max_length=64, description="a private table's invite code")] = None,
) -> dict[str, Any]:
    """`table.yourSeatId`, `table.hand.actorSeatId`, `table.hand.legalActions` (null / false =
    unavailable), your hole cards, the deadline and the hand's `rulesVersion`. Another
    participant's cards are never included unless revealed. A private table is shown to its
    host, those seated or asking to sit, and with `invite`; to anyone else it is `not_found`."""
    viewing = GetView(viewer=who.participant_id, invite_hash=invite_hash(invite) if invite else None)
    result = await bus(request).table(table_id, viewing)
    await chat_members(request).watched(table_id, who.participant_id)
    return {"table": camel(result.view)}


@router.get(
    "/tables/{table_id}/events",
    response_model=EventsOut,
    responses=refusals(*TABLE),
    summary="Numbered events (long-poll)",
)
async def events(request: Request, table_id: str, who: Who, query: Annotated[EventsQuery, Query()]) -> JSONResponse:
    """Events with `seq > after`, redacted for you, oldest first. With `wait`, the call returns
    as soon as something happens (or after `wait` seconds with what came, maybe nothing).
    It also returns at once when the gateway stops (ask again: another one answers).
    `wake=mine` returns only once an event is addressed to you (its `private` copy: your hole
    cards, your turn, your own notices) or a hand ends (`hand_end`, `hand_cancelled`, a reset or
    closed table), with every event since `after`: an agent that acts only on its turn (and
    readies up between hands) is not woken by each move of the others. `lastSeq`: ask again with `after=lastSeq`."""
    # The events are the hub's serialized copies, embedded as they are, so the response skips FastAPI's validation
    # of them against EventsOut (a second parse of every event); tests/gateway/test_zz_openapi.py
    # checks the shape
    check_table_id(table_id)
    hub: Hub = request.app.state.hub
    me = who.participant_id
    signal = asyncio.Event()
    deadline = time.monotonic() + min(query.wait, request.app.state.gw.longpoll_max_seconds)
    feed = await hub.watch(table_id, signal)  # subscribed before anything is fetched
    known = False  # an unknown table's feed closes at once (no 30 s linger per probe)
    found: list[orjson.Fragment] = []  # events read so far (wake=mine keeps them until one is mine)
    woken = query.wake == "any"
    cursor = query.after
    try:
        await chat_members(request).watched(table_id, me)
        while True:
            signal.clear()
            batch = await next_events(feed, bus(request), me, cursor, query.limit - len(found))
            known = known or batch.asked
            found += (orjson.Fragment(e.event) for e in batch.events)
            woken = woken or any(e.private or e.kind in HAND_BOUNDARIES for e in batch.events)
            cursor = batch.last
            if found and (woken or len(found) >= query.limit):
                break
            if batch.more:
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0 or hub.stopping:
                break
            try:
                async with asyncio.timeout(min(remaining, 0.25) if batch.behind else remaining):
                    await signal.wait()
            except TimeoutError:
                pass
    finally:
        hub.unwatch(feed, signal, linger=known or feed.top is not None)
    return Json({"tableId": table_id, "after": query.after, "lastSeq": cursor, "events": found})


@router.get(
    "/tables/{table_id}/hands", response_model=HandsOut, responses=refusals(*TABLE), summary="Finished hands of a table"
)
async def hands(
    request: Request,
    table_id: str,
    who: Who,
    mine: bool = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    after: After = None,
) -> dict[str, Any]:
    """Finished hands, newest first (by end, then hand id; `mine=true`: only those you played),
    `limit` to a page: ask again with `after=next` for the next one."""
    result = await bus(request).table(
        table_id, ListHands(participant_id=who.participant_id if mine else None, limit=limit, after=after)
    )
    return {"tableId": table_id, "hands": camel(result.hands), "next": result.next}


async def _hand(
    request: Request, who: Principal, hand_id: str, table_id: str | None, fmt: Literal["json", "phh"]
) -> HandHistory:
    if not HAND_ID.match(hand_id):
        raise ApiError(ErrorCode.NOT_FOUND, "no such hand")
    table_id = table_id or table_of_hand(hand_id)
    if not table_id:
        raise ApiError(ErrorCode.NOT_FOUND, f"no hand {hand_id[:80]!r}; pass tableId")
    result = await bus(request).table(table_id, GetHand(hand_id=hand_id, viewer=who.participant_id, format=fmt))
    if result.hand is None:
        raise ApiError(ErrorCode.NOT_FOUND, f"no hand {hand_id[:80]!r}")
    return result.hand


HAND_ID = re.compile(r"^[!-~]{1,200}$")


HandId = Annotated[str, "hand id"]
TableQuery = Annotated[
    str | None, Query(alias="tableId", max_length=64, description="the hand's table (optional when the id names it)")
]


@router.get(
    "/hands/{hand_id}.phh",
    response_class=PlainTextResponse,
    summary="A hand history as PHH",
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "PHH (TOML) text, redacted for you",
        },
        **refusals(*TABLE),
    },
)
async def hand_phh(request: Request, hand_id: str, who: Who, table_id: TableQuery = None) -> PlainTextResponse:
    hand = await _hand(request, who, hand_id, table_id, "phh")
    return PlainTextResponse(hand.phh or "", media_type="text/plain; charset=utf-8")


@router.get("/hands/{hand_id}", response_model=HandOut, responses=refusals(*TABLE), summary="A hand history (JSON)")
async def hand_json(
    request: Request, hand_id: str, who: Who, table_id: TableQuery = None
) -> HandHistory | PlainTextResponse:
    """A finished hand as you may see it: your cards, and others' only when shown."""
    if hand_id.endswith(".phh"):
        return await hand_phh(request, hand_id[:-4], who, table_id)
    return await _hand(request, who, hand_id, table_id, "json")


# --- chat --------------------------------------------------------------------------------------


@router.get("/tables/{table_id}/chat", response_model=ChatOut, responses=refusals(*TABLE), summary="Recent table chat")
async def chat_history(
    request: Request,
    table_id: str,
    who: Who,
    before: Annotated[int | None, Query(ge=1, le=10**12)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> dict[str, Any]:
    """Messages oldest first; plain text (escape it when rendering)."""
    check_table_id(table_id)
    page: ChatHistoryPage = await bus(request).call(
        subjects.CHAT_HISTORY, ChatHistory(table_id=table_id, before=before, limit=limit), ChatHistoryPage
    )
    return {"tableId": table_id, "messages": camel(page.messages), "hasMore": page.has_more}


@router.post(
    "/tables/{table_id}/chat",
    response_model=ChatPostedOut,
    responses=refusals(*TABLE, ErrorCode.CONFLICT, ErrorCode.FORBIDDEN, ErrorCode.INVALID_MESSAGE, ErrorCode.THROTTLED),
    summary="Say something at the table",
)
async def chat_post(
    request: Request, table_id: str, body: ChatBody, who: Who, idempotency_key: IdemKey = None
) -> ChatPosted:
    """Public speech while seated or watching: at most 500 characters, throttled (429 with
    Retry-After)."""
    check_table_id(table_id)
    return await bus(request).call(
        subjects.CHAT_POST, commands.chat_post(who, table_id, body.text, idempotency_key), ChatPosted
    )


# --- money -------------------------------------------------------------------------------------


@router.get("/balance", response_model=BalanceOut, responses=refusals(*BUS), summary="Your balance")
async def balance(request: Request, who: Who) -> Balance:
    """Available, reserved at tables and in play (escrow of open hands), separately."""
    return await bus(request).call(subjects.WALLET_BALANCE, BalanceQuery(account_id=who.participant_id), Balance)


@router.get("/leaderboard", response_model=LeaderboardOut, responses=refusals(*BUS), summary="The leaderboard")
async def leaderboard(
    request: Request, who: Who, limit: Annotated[int, Query(ge=1, le=100)] = 10, after: After = None
) -> dict[str, Any]:
    """Participants by total chips (available + reserved; escrow excluded), most first, then by
    id; `limit` to a page, `after=next` for the next one (each page is the board as it is read)."""
    board: Leaderboard = await bus(request).call(
        subjects.WALLET_LEADERBOARD, LeaderboardQuery(limit=limit, after=after), Leaderboard
    )
    names = await names_of(request.app.state.engine, [e.account_id for e in board.entries])
    entries = []
    for e in board.entries:
        name, kind = names.get(e.account_id, ("", None))
        entries.append(
            {
                "rank": e.rank,
                "participantId": e.account_id,
                "name": name,
                "kind": kind,
                "total": e.total,
                "granted": e.granted,
            }
        )
    return {"entries": entries, "next": board.next}


@router.get("/sessions", response_model=SessionsOut, responses=refusals(*BUS), summary="Your table sessions")
async def sessions(
    request: Request, who: Who, limit: Annotated[int, Query(ge=1, le=500)] = 50, after: After = None
) -> SessionHistory:
    """History: buy-in, cash-out, net and gross wagers per table session, newest first (then by
    id), `limit` to a page, `after=next` for the next one; `granted`: the chips the house gave
    you (the starting grant and refills), of which `refilled` by refills."""
    query = SessionsQuery(account_id=who.participant_id, limit=limit, after=after)
    return await bus(request).call(subjects.WALLET_SESSIONS, query, SessionHistory)


async def _refill_account(request: Request, who: Principal, participant_id: str | None) -> str:
    """Whose refill: yourself, or (with the owner's login token) one of your agents."""
    if participant_id is None or participant_id == who.participant_id:
        return who.participant_id
    row = await request.app.state.identity.participant(participant_id) if who.via == "token" else None
    if row is None or row.owner_id != who.owner_id:
        raise ApiError(ErrorCode.NOT_FOUND, "no such participant of yours", field="participantId")
    return participant_id


@router.get(
    "/refill",
    response_model=RefillStateOut,
    responses=refusals(*BUS, ErrorCode.NOT_FOUND),
    summary="Whether you may claim a refill now",
)
async def refill_state(
    request: Request,
    who: Who,
    participant_id: Annotated[str | None, Query(alias="participantId", max_length=32)] = None,
) -> dict[str, Any]:
    """`status`: `eligible` (with the `amount` a claim brings), `has_chips` (`total` is not below
    `below`) or `claimed_today` (`nextAt`: the start of the next UTC day). docs/wallet.md "Refills"."""
    account = await _refill_account(request, who, participant_id)
    return camel(await bus(request).call(subjects.WALLET_REFILL_STATE, RefillQuery(account_id=account), RefillState))


@router.post(
    "/refill",
    response_model=RefilledOut,
    summary="Claim a refill",
    responses=refusals(
        *BUS, ErrorCode.NOT_FOUND, ErrorCode.FROZEN, ErrorCode.REFILL_NOT_NEEDED, ErrorCode.REFILL_TOO_SOON
    ),
)
async def refill(request: Request, body: RefillBody, who: Who) -> dict[str, Any]:
    """When your chips (available, reserved and in play) are below the threshold, the house tops
    them up to the starting grant, at most once per UTC day. `refillId` is yours: claiming again
    with it returns the first result and moves nothing. An owner's login token may claim for one
    of its agents (`participantId`). A freeze on the owner or the participant refuses it."""
    account = await _refill_account(request, who, body.participant_id)
    state = await _limits(request, dataclasses.replace(who, participant_id=account, credential_id=None))
    for scope in (state.owner, state.participant):
        if scope is not None and scope.frozen:
            raise ApiError(
                ErrorCode.FROZEN,
                "new risk is frozen",
                scope=scope.scope.value,
                scope_id=scope.scope_id,
                reason=scope.frozen_reason,
            )
    return camel(
        await bus(request).call(subjects.WALLET_REFILL, Refill(account_id=account, refill_id=body.refill_id), Refilled)
    )


# --- limits ------------------------------------------------------------------------------------


async def _limits(request: Request, who: Principal) -> LimitsState:
    return await bus(request).call(
        subjects.LIMITS_GET,
        LimitsGet(owner_id=who.owner_id, participant_id=who.participant_id, credential_id=who.credential_id),
        LimitsState,
    )


def _scope_id(who: Principal, scope: Scope) -> str:
    """A caller sets caps and freezes only on its own owner, participant or credential."""
    ids = {Scope.OWNER: who.owner_id, Scope.PARTICIPANT: who.participant_id, Scope.CREDENTIAL: who.credential_id}
    scope_id = ids[scope]
    if scope_id is None:
        raise ApiError(ErrorCode.MALFORMED, f"no {scope.value} behind these credentials")
    return scope_id


@router.get("/limits", response_model=LimitsOut, responses=refusals(*BUS), summary="Caps and counters")
async def get_limits(request: Request, who: Who) -> LimitsState:
    """Owner and participant caps, what is used (UTC day), headroom, pending raises, freezes."""
    return await _limits(request, who)


@router.post(
    "/limits/caps",
    response_model=CapChangeOut,
    responses=refusals(*BUS, ErrorCode.FORBIDDEN),
    summary="Lower or raise a cap",
)
async def set_cap(request: Request, body: CapBody, who: Who) -> CapChange:
    """Lowering applies at once; raising waits for the cool-off. An agent's key may lower
    caps; raising needs the owner's login token."""
    scope_id = _scope_id(who, body.scope)
    return await bus(request).call(
        subjects.LIMITS_SET_CAP,
        # limits decides whether this is a raise, with the write (an agent's key may only lower)
        LimitsSetCap(
            scope=body.scope, scope_id=scope_id, limit=body.limit, cap=body.cap, lower_only=who.via != "token"
        ),
        CapChange,
    )


@router.post(
    "/limits/freeze",
    response_model=FreezeOut,
    responses=refusals(*BUS, ErrorCode.FORBIDDEN),
    summary="Freeze (or unfreeze) new risk",
)
async def freeze(request: Request, body: FreezeBody, who: Who) -> FreezeState:
    """Freezing stops new risk at once; accepted obligations still settle. Unfreezing needs the
    owner's login token."""
    scope_id = _scope_id(who, body.scope)
    return await bus(request).call(
        subjects.LIMITS_FREEZE,
        # limits decides who may unfreeze, as it decides who may raise a cap (an agent's key may only freeze)
        LimitsFreeze(
            scope=body.scope, scope_id=scope_id, frozen=body.frozen, reason=body.reason, freeze_only=who.via != "token"
        ),
        FreezeState,
    )


#: the agents' loop, matched first: FastAPI tries a router's routes in order, a few µs each, and
#: these two are most of the requests (a long-poll per agent and an action per turn)
EVENTS_PATH = f"{router.prefix}/tables/{{table_id}}/events"
ACTIONS_PATH = f"{router.prefix}/tables/{{table_id}}/actions"
HOT_PATHS = (EVENTS_PATH, ACTIONS_PATH)
router.routes.sort(key=lambda route: getattr(route, "path", "") not in HOT_PATHS)
