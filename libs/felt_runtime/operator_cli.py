"""What the operators' commands (`felt table`, `felt tournament`) share: a JSON argument given as
text or `@file`, one request to the running room (`FELT_NATS_URL`) as the operator, and the
answer printed a line per item — or a refusal as one line with its code (and the field at fault
with the reason) and exit 1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from felt_contracts.access import OPERATOR
from felt_contracts.base import Request
from felt_runtime.bus import BusError, call, make_broker
from felt_runtime.nats_access import connect_options
from felt_runtime.settings import Settings

M = TypeVar("M", bound=BaseModel)


def json_object(text: str, model: type[BaseModel]) -> dict[str, Any]:
    """The JSON object in `text`, or in the file `text` names after an `@`, to validate as `model`."""
    raw = json.loads(Path(text[1:]).read_text() if text.startswith("@") else text)
    if not isinstance(raw, dict):
        raise ValueError(f"the argument must be a JSON object (a {model.__name__})")
    return raw


def answer(
    command: str,
    build: Callable[[], Request],
    send: Callable[[Any], Coroutine[Any, Any, M]],
    show: Callable[[M], list[str]],
) -> int:
    """Build the request, send it, print what `show` makes of the answer; 1 on any refusal."""
    try:
        request = build()
    except (ValueError, OSError) as exc:  # includes pydantic's ValidationError
        print(f"{command}: {one_line(exc)}")
        return 1
    try:
        result = asyncio.run(send(request))
    except BusError as exc:
        field, reason = exc.details.get("field"), exc.details.get("reason")
        where = f" (field {field}{', ' + reason if reason else ''})" if field else ""
        print(f"{command}: {exc.code.value}: {exc.message}{where}")
        return 1
    for line in show(result):
        print(line)
    return 0


def one_line(exc: Exception) -> str:
    """A refused input (a pydantic error: its first field) as one line."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"malformed: field {'.'.join(str(p) for p in first['loc']) or '(config)'}: {first['msg']}"
    return f"malformed: {exc}"


async def ask(subject: str, request: Request, result: type[M], timeout: float = 5.0) -> M:
    """One request to the running room as the operator, on a connection of its own."""
    settings = Settings()
    broker = make_broker(settings.nats_url, "cli", **connect_options(settings, OPERATOR))
    await broker.connect()
    try:
        return await call(broker, subject, request, result, timeout=timeout)
    finally:
        await broker.stop()
