"""The API's refusals as exceptions: `{code, message, details}` plus the HTTP status."""

from __future__ import annotations

from typing import Any

import httpx


class ApiError(Exception):
    """A refusal by the server (its stable `code`, e.g. `insufficient_funds`), or `unavailable`
    when the room did not answer within the retries."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}

    @classmethod
    def from_response(cls, response: httpx.Response) -> "ApiError":
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        return cls(
            response.status_code,
            str(body.get("code", "unknown")),
            str(body.get("message", response.text[:200])),
            body.get("details") if isinstance(body.get("details"), dict) else {},
        )


class Conflict(ApiError):
    """A 409 on an action (stale turn, not your turn, illegal...): `view` is the table as it is
    now, read right after the refusal, so the caller can decide again."""

    def __init__(self, error: ApiError, view: dict[str, Any]) -> None:
        super().__init__(error.status, error.code, error.message, error.details)
        self.view = view
