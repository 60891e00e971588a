"""Errors as JSON `{code, message, details}`: one table maps every bus error code to an HTTP
status, and request validation splits into 400 (unparsable) and 422 (fails a field rule)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from redis.exceptions import ConnectionError as ValkeyConnectionError
from redis.exceptions import TimeoutError as ValkeyTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError

log = logging.getLogger("felt.gateway")

#: Every error code -> HTTP status. Codes the gateway does not know yet map to 409 (a refusal
#: by the owner of the state), never to a 500.
STATUS: dict[str, int] = {
    ErrorCode.MALFORMED: 400,
    ErrorCode.INVALID_AMOUNT: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.ADMISSION: 403,
    ErrorCode.TABLE_CLOSED: 409,
    ErrorCode.NOT_HOST: 403,
    ErrorCode.INVITE_INVALID: 404,
    ErrorCode.TOO_MANY_TABLES: 409,
    ErrorCode.LIMIT_EXCEEDED: 403,
    ErrorCode.FROZEN: 403,
    ErrorCode.REFILL_NOT_NEEDED: 409,
    ErrorCode.REFILL_TOO_SOON: 409,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFLICT: 409,
    ErrorCode.INSUFFICIENT_FUNDS: 409,
    ErrorCode.HAND_CLOSED: 409,
    ErrorCode.CHIPS_IN_PLAY: 409,
    ErrorCode.ILLEGAL_ACTION: 409,
    ErrorCode.NOT_YOUR_TURN: 409,
    ErrorCode.STALE_TURN: 409,
    ErrorCode.NOT_SEATED: 409,
    ErrorCode.TABLE_FULL: 409,
    ErrorCode.ALREADY_SEATED: 409,
    ErrorCode.ALREADY_REGISTERED: 409,
    ErrorCode.NOT_REGISTERED: 409,
    ErrorCode.TOURNAMENT_FULL: 409,
    ErrorCode.REGISTRATION_CLOSED: 409,
    ErrorCode.TOURNAMENT_STARTED: 409,
    ErrorCode.VALIDATION: 422,
    ErrorCode.INVALID_MESSAGE: 422,
    ErrorCode.THROTTLED: 429,
    ErrorCode.INTERNAL: 500,
    ErrorCode.UNAVAILABLE: 503,
}
DEFAULT_STATUS = 409


def status_for(code: str) -> int:
    return STATUS.get(code, DEFAULT_STATUS)


class ErrorDetails(BaseModel):
    """What a refusal adds: `field` names a wrong input field, `reason` refines the code; other
    keys are the code's own (`retry_after`, `min_buy_in`, `turn_id`...)."""

    model_config = ConfigDict(extra="allow")

    field: str | None = Field(default=None, description="the request field that is wrong", examples=["buyIn"])
    reason: str | None = Field(default=None, description="a finer reason within the code", examples=["one_per_owner"])


class ErrorBody(BaseModel):
    """Every error response."""

    code: str = Field(description="stable: branch on it (the route's answers list the codes it gives)")
    message: str = Field(description="for people; may change")
    details: ErrorDetails = Field(default_factory=ErrorDetails)


#: what each code means, as the OpenAPI's error answers say it (and their examples' `message`)
MEANING: dict[str, str] = {
    ErrorCode.MALFORMED: "the request could not be parsed (not JSON, or an action of the wrong shape)",
    ErrorCode.INVALID_AMOUNT: "an amount outside what the table allows",
    ErrorCode.UNAUTHORIZED: "no credentials, or credentials not recognised",
    ErrorCode.FORBIDDEN: "these credentials may not do this",
    ErrorCode.ADMISSION: "this table does not admit your kind of participant",
    ErrorCode.TABLE_CLOSED: "the table is closed or closing",
    ErrorCode.NOT_HOST: "only the table's host may do this",
    ErrorCode.INVITE_INVALID: "the invite code is wrong or was revoked",
    ErrorCode.TOO_MANY_TABLES: "you host as many open tables as allowed (`details.limit`)",
    ErrorCode.LIMIT_EXCEEDED: "a cap on you or your owner refuses it",
    ErrorCode.FROZEN: "new risk is frozen for you or your owner",
    ErrorCode.REFILL_NOT_NEEDED: "your chips are not below the refill threshold",
    ErrorCode.REFILL_TOO_SOON: "a refill was claimed this UTC day",
    ErrorCode.NOT_FOUND: "no such thing (or not yours)",
    ErrorCode.CONFLICT: "the state refuses it, or an Idempotency-Key or name is already used",
    ErrorCode.INSUFFICIENT_FUNDS: "your balance does not cover it",
    ErrorCode.HAND_CLOSED: "that hand is over",
    ErrorCode.CHIPS_IN_PLAY: "chips of yours are committed to a hand not settled yet",
    ErrorCode.ILLEGAL_ACTION: "not a legal action now (see `legalActions`)",
    ErrorCode.NOT_YOUR_TURN: "another seat is to act",
    ErrorCode.STALE_TURN: "the turn named is over",
    ErrorCode.NOT_SEATED: "you are not seated (or not dealt in)",
    ErrorCode.TABLE_FULL: "no free seat",
    ErrorCode.ALREADY_SEATED: "you (or another participant of your owner) already sit here or elsewhere",
    ErrorCode.ALREADY_REGISTERED: "already registered",
    ErrorCode.NOT_REGISTERED: "not registered",
    ErrorCode.TOURNAMENT_FULL: "the tournament is full",
    ErrorCode.REGISTRATION_CLOSED: "the tournament takes no entries",
    ErrorCode.TOURNAMENT_STARTED: "the tournament has started",
    ErrorCode.VALIDATION: "a field breaks its rule (`details.errors` or `details.field`)",
    ErrorCode.INVALID_MESSAGE: "chat text empty or longer than 500 characters",
    ErrorCode.THROTTLED: "too many requests: wait `Retry-After` seconds",
    ErrorCode.INTERNAL: "a bug, logged with the correlation id",
    ErrorCode.UNAVAILABLE: "a dependency did not answer: retry (with the same Idempotency-Key)",
}


def refusals(*codes: ErrorCode | str) -> dict[int | str, dict[str, Any]]:
    """The error answers of a route, for its decorator's `responses=`: one per status, whose
    `code` is the enum of the route's codes with that status, with an example of each."""
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys(str(c) for c in codes):
        by_status.setdefault(status_for(code), []).append(code)
    return {status: _answer(sorted(group)) for status, group in sorted(by_status.items())}


def _answer(codes: list[str]) -> dict[str, Any]:
    examples = {
        code: {
            "summary": MEANING.get(code, code),
            "value": {"code": code, "message": MEANING.get(code, code), "details": {}},
        }
        for code in codes
    }
    schema = {"$ref": "#/components/schemas/ErrorBody", "properties": {"code": {"type": "string", "enum": codes}}}
    return {
        "description": "; ".join(f"`{code}`: {MEANING.get(code, code)}" for code in codes),
        "content": {"application/json": {"schema": schema, "examples": examples}},
    }


def codes_of(responses: dict[Any, dict[str, Any]]) -> set[str]:
    """The codes `refusals` documented in `responses` (a route's, or an operation's)."""
    return {
        code
        for response in responses.values()
        for code in response.get("content", {})
        .get("application/json", {})
        .get("schema", {})
        .get("properties", {})
        .get("code", {})
        .get("enum", ())
    }


class ApiError(Exception):
    """A refusal raised by the gateway itself."""

    def __init__(self, code: ErrorCode | str, message: str, status: int | None = None, **details: Any) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.status = status or status_for(self.code)
        self.details = details


def error_response(
    code: str, message: str, status: int, details: dict[str, Any] | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The `ErrorBody` JSON (`details` made JSON as it is, not validated: a refusal never fails)."""
    body = {"code": code, "message": message, "details": _jsonable(details) if details else {}}
    return JSONResponse(body, status_code=status, headers=headers)


def retry_after(code: str, details: dict[str, Any]) -> dict[str, str] | None:
    """A throttled refusal says when to come back: `Retry-After` in whole seconds (at least 1)."""
    if code == ErrorCode.THROTTLED and "retry_after" in details:
        return {"Retry-After": str(max(1, int(float(details["retry_after"]) + 0.999)))}
    return None


def from_bus(exc: BusError) -> JSONResponse:
    headers = retry_after(exc.code, exc.details)
    return error_response(exc.code.value, exc.message, status_for(exc.code), exc.details, headers)


def _jsonable(details: dict[str, Any]) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(details, default=str))


HTTP_CODES = {
    400: ErrorCode.MALFORMED,
    401: ErrorCode.UNAUTHORIZED,
    403: ErrorCode.FORBIDDEN,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.MALFORMED,
    409: ErrorCode.CONFLICT,
    413: ErrorCode.MALFORMED,
    415: ErrorCode.MALFORMED,
    422: ErrorCode.VALIDATION,
    429: ErrorCode.THROTTLED,
    503: ErrorCode.UNAVAILABLE,
}


async def _api(_: Request | None, exc: ApiError) -> JSONResponse:
    return error_response(exc.code, exc.message, exc.status, exc.details, retry_after(exc.code, exc.details))


async def _bus(_: Request | None, exc: BusError) -> JSONResponse:
    if exc.code == ErrorCode.INTERNAL:
        log.warning("dependency failed", extra={"message": exc.message})
    return from_bus(exc)


async def _valkey(_: Request | None, exc: Exception) -> JSONResponse:
    """Valkey (presence) unreachable or out of free
    connections: the request did nothing and may be retried, like a bus dependency's outage."""
    log.warning("valkey unavailable", extra={"error": type(exc).__name__})
    return error_response(
        ErrorCode.UNAVAILABLE,
        "a dependency is unavailable: retry",
        status_for(ErrorCode.UNAVAILABLE),
        {"dependency": "valkey"},
        {"Retry-After": "1"},
    )


async def _validation(_: Request | None, exc: RequestValidationError) -> JSONResponse:
    errors = [
        {"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in exc.errors()
    ]
    kinds = [str(e.get("type", "")) for e in exc.errors()]
    if any(k == "model_attributes_type" or k.startswith("json") for k in kinds):
        return error_response(ErrorCode.MALFORMED, "request body is not valid JSON", 400, {"errors": errors})
    # the first wrong field by its JSON name (a body's, a query's or a path's)
    field = next((str(e["loc"][1]) for e in exc.errors() if len(e.get("loc", ())) > 1), None)
    details = {"errors": errors, **({"field": field} if field else {})}
    return error_response(ErrorCode.VALIDATION, "request failed validation", 422, details)


async def _http(_: Request | None, exc: StarletteHTTPException) -> JSONResponse:
    code = HTTP_CODES.get(exc.status_code, ErrorCode.MALFORMED if exc.status_code < 500 else ErrorCode.INTERNAL)
    return error_response(code, str(exc.detail), exc.status_code, headers=getattr(exc, "headers", None))


async def _unexpected(_: Request | None, exc: Exception) -> JSONResponse:
    log.exception("unhandled error")
    return error_response(ErrorCode.INTERNAL, "internal error", 500)


#: exception class -> its response (`install`)
HANDLERS: dict[type[Exception], Any] = {
    ApiError: _api,
    BusError: _bus,
    ValkeyConnectionError: _valkey,
    ValkeyTimeoutError: _valkey,
    RequestValidationError: _validation,
    StarletteHTTPException: _http,
    Exception: _unexpected,
}


def install(app: FastAPI) -> None:
    for cls, handler in HANDLERS.items():
        app.add_exception_handler(cls, handler)
