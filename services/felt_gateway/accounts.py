"""Owner accounts and their participants: sign up, log in/out, who am I, agents and API keys."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from felt_contracts.errors import ErrorCode

from felt_gateway.auth import Owner, Who, identity
from felt_gateway.errors import refusals
from felt_gateway.schemas import (
    AgentBody,
    AgentKey,
    LoggedIn,
    LoginBody,
    Me,
    NameBody,
    NameOut,
    ParticipantOut,
    Revoked,
    SignedUp,
    SignUpBody,
)

router = APIRouter(prefix="/api/v2/accounts", tags=["accounts"])


@router.post(
    "/signup",
    response_model=SignedUp,
    status_code=201,
    responses=refusals(ErrorCode.CONFLICT, ErrorCode.UNAVAILABLE),
    summary="Create an owner account",
)
async def sign_up(request: Request, body: SignUpBody) -> SignedUp:
    """Creates the owner and its HUMAN participant (with a wallet account and the starting grant),
    seen by `screenName` (or a generated name). A taken email or screen name is 409 `conflict`,
    a screen name breaking a rule 422 `validation`; both with `details.field`."""
    owner_id, human_id, name = await identity(request).sign_up(body.email, body.password, body.screen_name)
    return SignedUp(owner_id=owner_id, participant_id=human_id, screen_name=name)


@router.post(
    "/login",
    response_model=LoggedIn,
    responses=refusals(ErrorCode.UNAUTHORIZED, ErrorCode.THROTTLED),
    summary="Log in: a bearer token that expires",
)
async def log_in(request: Request, body: LoginBody) -> LoggedIn:
    """Throttled against password guessing: over the attempts allowed per email (or per client
    address) in a window, 429 `throttled` with `Retry-After`, whatever the password."""
    ident = identity(request)
    throttle = request.app.state.login_throttle
    address = request.client.host if request.client else "unknown"
    await throttle.attempt(body.email, address)
    token, expires, owner_id = await ident.log_in(body.email, body.password)
    await throttle.succeeded(body.email, address)
    who = await ident.authenticate(token)
    return LoggedIn(token=token, expires_at=expires, owner_id=owner_id, participant_id=who.participant_id)


@router.post("/logout", status_code=204, summary="Revoke this login token")
async def log_out(request: Request, who: Owner) -> None:
    header = request.headers.get("authorization", "")
    await identity(request).log_out(header.partition(" ")[2].strip())


@router.get("/me", response_model=Me, summary="Who the credentials act as")
async def me(request: Request, who: Who) -> Me:
    ident = identity(request)
    rows = await ident.participants_of(who.owner_id)
    visible = rows if who.via == "token" else [r for r in rows if r.id == who.participant_id]
    out: list[ParticipantOut] = []
    for r in visible:
        prefix = await ident.key_state(r.id) if r.kind == "AGENT" else None
        out.append(
            ParticipantOut(
                participant_id=r.id, kind=r.kind, name=r.name, created_at=r.created_at, api_key_prefix=prefix
            )
        )
    return Me(owner_id=who.owner_id, participant_id=who.participant_id, kind=who.kind, name=who.name, participants=out)


@router.put(
    "/me/name",
    response_model=NameOut,
    responses=refusals(ErrorCode.CONFLICT),
    summary="Change the name you are seen by",
)
async def rename(request: Request, body: NameBody, who: Who) -> NameOut:
    """A login token renames the person (screen-name rules, unique); an agent's key renames that
    agent. Seats taken from now on, chat and the leaderboard show the new name. A taken name is
    409 `conflict`, a name breaking a rule 422 `validation`; both with `details.field`."""
    name = await identity(request).rename(who, body.name)
    return NameOut(participant_id=who.participant_id, name=name)


@router.post(
    "/agents",
    response_model=AgentKey,
    status_code=201,
    responses=refusals(ErrorCode.UNAVAILABLE),
    summary="Create an agent and its API key",
)
async def create_agent(request: Request, body: AgentBody, who: Owner) -> AgentKey:
    """A new AGENT participant (with its own wallet account). The API key is shown once."""
    row, key = await identity(request).create_agent(who.owner_id, body.name)
    return AgentKey(participant_id=row.id, name=row.name, api_key=key)


@router.post(
    "/agents/{agent_id}/key",
    response_model=AgentKey,
    responses=refusals(ErrorCode.NOT_FOUND),
    summary="Replace an agent's API key",
)
async def rotate_key(request: Request, agent_id: str, who: Owner) -> AgentKey:
    """Revokes the live key and issues a new one (shown once)."""
    ident = identity(request)
    key = await ident.issue_key(who.owner_id, agent_id)
    row = await ident.participant(agent_id)
    assert row is not None
    return AgentKey(participant_id=agent_id, name=row.name, api_key=key)


@router.delete(
    "/agents/{agent_id}/key",
    response_model=Revoked,
    responses=refusals(ErrorCode.NOT_FOUND),
    summary="Revoke an agent's API key",
)
async def revoke_key(request: Request, agent_id: str, who: Owner) -> Any:
    return Revoked(participant_id=agent_id, revoked=await identity(request).revoke_key(who.owner_id, agent_id))
