"""JSON out of the gateway's hot paths (actions, long-polls, socket frames) with orjson: the
standard library's encoder would be the largest single cost of a busy gateway. Same output:
compact, UTF-8, integer dict keys as strings."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=_OPTIONS).decode()


class Json(JSONResponse):
    """A JSON response rendered by orjson."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=_OPTIONS)
