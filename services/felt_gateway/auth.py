"""Authentication for REST: `Authorization: Bearer <token or API key>` (or `X-API-Key`).

The credential decides the participant and its kind: an owner's bearer token acts as that
owner's HUMAN participant, an API key as its AGENT. Nothing in a request body can change that.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, APIRouter
from fastapi.security import APIKeyHeader, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from starlette.datastructures import Headers

from felt_contracts.errors import ErrorCode
from felt_gateway.errors import ApiError
from felt_gateway.identity import Identity, Principal

#: the two ways to send a credential, as the OpenAPI documents them (`document`)
bearer = HTTPBearer(auto_error=False, description="An owner's login token (HUMAN) or an agent's API key (AGENT)")
api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An agent's API key")
SCHEMES: tuple[HTTPBearer | APIKeyHeader, ...] = (bearer, api_key_header)


def identity(request: Request) -> Identity:
    return request.app.state.identity


def credential(headers: Headers) -> str | None:
    """The secret a request carries: `Authorization: Bearer <secret>`, else `X-API-Key` (read
    as `bearer` and `api_key_header` read them)."""
    scheme, secret = get_authorization_scheme_param(headers.get("authorization"))
    if secret and scheme.lower() == "bearer":
        return secret
    return headers.get("x-api-key") or None


async def principal(request: Request) -> Principal:
    """Who is asking. The headers are read here, not through `bearer` and `api_key_header` as
    dependencies: solving those two more dependencies on every request was about a tenth of the
    gateway's CPU per action; `document` puts them in the OpenAPI as FastAPI did."""
    secret = credential(request.headers)
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


def document(app: FastAPI, *routers: APIRouter) -> None:
    """The OpenAPI as FastAPI writes it for security dependencies: both schemes in the components
    and, on every operation of `routers` that authenticates (depends on `principal`), either one."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        spec = build()
        spec.setdefault("components", {})["securitySchemes"] = {
            s.scheme_name: s.model.model_dump(mode="json", by_alias=True, exclude_none=True) for s in SCHEMES
        }
        for route in (r for router in routers for r in router.routes):
            if isinstance(route, APIRoute) and route.include_in_schema and depends_on(route.dependant, principal):
                for method in route.methods or ():
                    operation = spec["paths"].get(route.path_format, {}).get(method.lower())
                    if operation is not None:
                        operation["security"] = [{s.scheme_name: []} for s in SCHEMES]
        return spec

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend it


def depends_on(dependant: Dependant, call: Any) -> bool:
    """`call` is among the dependencies `dependant` solves (directly or through others)."""
    return any(d.call is call or depends_on(d, call) for d in dependant.dependencies)
