"""Cursor pagination of a list kept in a stable order (its sort key ends with a unique id).

A page's `next` is the sort key of its last item, written as an opaque string; the caller asks
again with `after=next`, and the list's owner reads the rows strictly past that key (keyset: a
row added meanwhile never shows twice, nor shifts what was already read). `next` is absent on
the last page."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError

Row = TypeVar("Row")
Key = str | int | datetime


def cursor(*key: Key) -> str:
    """The cursor of the item whose sort key is `key`."""
    raw = json.dumps([part.isoformat() if isinstance(part, datetime) else part for part in key])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def key(after: str | None, *kinds: type) -> tuple[Any, ...] | None:
    """The sort key `after` names (of `kinds`, in order), or None for the first page; a cursor
    this list did not write is `validation` on `after`."""
    if after is None:
        return None
    try:
        parts = json.loads(base64.urlsafe_b64decode(after + "=" * (-len(after) % 4)))
        if not isinstance(parts, list) or len(parts) != len(kinds):
            raise ValueError
        return tuple(_read(part, kind) for part, kind in zip(parts, kinds))
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BusError(ErrorCode.VALIDATION, "not a cursor of this list", field="after") from None


def _read(part: Any, kind: type) -> Key:
    if kind is datetime and isinstance(part, str):
        return datetime.fromisoformat(part)
    if kind is int and isinstance(part, int) and not isinstance(part, bool):
        return part
    if kind is str and isinstance(part, str):
        return part
    raise ValueError


def page(rows: Sequence[Row], limit: int, key_of: Callable[[Row], tuple[Key, ...]]) -> tuple[list[Row], str | None]:
    """The first `limit` of `rows` (read with one more than `limit`) and the cursor of the next page."""
    shown = list(rows[:limit])
    return shown, cursor(*key_of(shown[-1])) if len(rows) > limit else None
