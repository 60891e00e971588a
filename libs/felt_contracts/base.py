"""Base classes shared by every bus message: strict models, ids, the reply envelope."""

from __future__ import annotations

import os
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from felt_contracts.errors import ErrorCode


def new_id() -> str:
    """A fresh random id (message ids, correlation ids): 128 random bits as 32 hex digits, the
    length of a uuid4's hex without building the UUID object (two per bus message)."""
    return os.urandom(16).hex()


#: where a page of a list starts: the `next` of the page before (felt_runtime/paging.py)
Cursor = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_-]+$")]


class Message(BaseModel):
    """Every bus message: unknown fields are refused so typos fail loudly, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Request(Message):
    """A command or query sent with request/reply.

    `message_id` is the idempotency key: a retried request carries the same one and gets the
    first outcome. `correlation_id` ties together every message caused by one user action.
    """

    message_id: str = Field(default_factory=new_id, min_length=1, max_length=200)
    correlation_id: str = Field(default_factory=new_id, min_length=1, max_length=200)


class Event(Message):
    """Something that happened, published for whoever listens. `event_id` is stable so
    consumers can drop duplicates."""

    event_id: str = Field(default_factory=new_id, min_length=1, max_length=200)
    correlation_id: str | None = None


class ErrorInfo(Message):
    """A refusal: a stable machine-readable code, a human message, optional details."""

    code: ErrorCode
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


ResultT = TypeVar("ResultT")


class Reply(Message, Generic[ResultT]):
    """The one reply shape: exactly one of `result` and `error` is set."""

    ok: bool
    result: ResultT | None = None
    error: ErrorInfo | None = None

    @classmethod
    def success(cls, result: Any) -> "Reply[Any]":
        return cls(ok=True, result=result)

    @classmethod
    def failure(cls, code: ErrorCode, message: str, **details: Any) -> "Reply[Any]":
        return cls(ok=False, error=ErrorInfo(code=code, message=message, details=details))
