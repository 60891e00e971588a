"""Errors as JSON `{code, message, details}`: one table maps every bus error code to an HTTP
status, and request validation splits into 400 (unparsable) and 422 (fails a field rule)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
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
    "invalid_message": 422,  # chat: empty or longer than 500 characters after cleaning
    ErrorCode.THROTTLED: 429,
    ErrorCode.INTERNAL: 500,
    ErrorCode.UNAVAILABLE: 503,
}
DEFAULT_STATUS = 409


def status_for(code: str) -> int:
    return STATUS.get(code, DEFAULT_STATUS)


class ErrorBody(BaseModel):
    """Every error response."""

    code: str = Field(examples=["not_found"])
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


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
    body = ErrorBody(code=code, message=message, details=details or {})
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def retry_after(code: str, details: dict[str, Any]) -> dict[str, str] | None:
    """A throttled refusal says when to come back: `Retry-After` in whole seconds (at least 1)."""
    if code == ErrorCode.THROTTLED and "retry_after" in details:
        return {"Retry-After": str(max(1, int(float(details["retry_after"]) + 0.999)))}
    return None


def from_bus(exc: BusError) -> JSONResponse:
    headers = retry_after(exc.code, exc.details)
    return error_response(exc.code.value, exc.message, status_for(exc.code), _jsonable(exc.details), headers)


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

#: error responses documented on every route
RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": desc}
    for status, desc in {
        400: "bad input",
        401: "not authenticated",
        403: "forbidden or not admitted",
        404: "not found",
        409: "state conflict or stale turn",
        422: "validation failed",
        429: "throttled",
        503: "a dependency is unavailable",
    }.items()
}


async def _api(_: Request | None, exc: ApiError) -> JSONResponse:
    return error_response(exc.code, exc.message, exc.status, _jsonable(exc.details), retry_after(exc.code, exc.details))


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
    return error_response(ErrorCode.VALIDATION, "request failed validation", 422, {"errors": errors})


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
