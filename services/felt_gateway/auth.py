"""Authentication for REST: `Authorization: Bearer <token or API key>` (or `X-API-Key`).

The credential decides the participant and its kind: an owner's bearer token acts as that
owner's HUMAN participant, an API key as its AGENT. Nothing in a request body can change that.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from felt_contracts.errors import ErrorCode
from felt_gateway.errors import ApiError
from felt_gateway.identity import Identity, Principal

bearer = HTTPBearer(auto_error=False, description="An owner's login token (HUMAN) or an agent's API key (AGENT)")
api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An agent's API key")


def identity(request: Request) -> Identity:
    return request.app.state.identity


async def principal(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    key: Annotated[str | None, Depends(api_key_header)],
) -> Principal:
    secret = creds.credentials if creds else key
    if not secret:
        raise ApiError(
            ErrorCode.UNAUTHORIZED, "authentication required", headers_hint="Authorization: Bearer <token or API key>"
        )
    if len(secret) > 200:
        raise ApiError(ErrorCode.UNAUTHORIZED, "credentials not recognised")
    return await identity(request).authenticate(secret)


async def owner(who: Annotated[Principal, Depends(principal)]) -> Principal:
    """Owner-only endpoints (managing agents) need the owner's login token, not an API key."""
    if who.via != "token":
        raise ApiError(ErrorCode.FORBIDDEN, "this needs the owner's login token, not an agent's API key")
    return who


Who = Annotated[Principal, Depends(principal)]
Owner = Annotated[Principal, Depends(owner)]
