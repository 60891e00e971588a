"""Structured JSON logging: one JSON object per line on stderr, with secrets blanked out.

`CORRELATION` holds the correlation id of the user action being served (the gateway sets it
per action; `felt_runtime.bus.dispatch` from each request it answers; `call` sends it on), so
every line logged on its behalf, in any service, carries the same `correlation_id`.

Whatever a line carries (a WebSocket URL with `?token=`, an exception quoting a header), login
tokens and API keys never reach a log: they are recognised by their prefixes, and any
`token=` / `password=` / `api_key=` value is blanked too.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from contextvars import ContextVar
from datetime import UTC, datetime

CORRELATION: ContextVar[str | None] = ContextVar("felt_correlation_id", default=None)

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


#: a Felt login token or API key (felt_gateway.identity), or a secret-looking query/form value
SECRET = re.compile(r"(felt_(?:t|ak)_)[A-Za-z0-9_\-]+|((?:token|password|api_?key)=)[^&\s\"']+", re.IGNORECASE)


def redact(text: str) -> str:
    return SECRET.sub(lambda m: (m.group(1) or m.group(2)) + "[redacted]", text)


class JsonFormatter(logging.Formatter):
    """Render a record as JSON; extra fields passed with `extra=` are kept."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if (cid := CORRELATION.get()) is not None:
            payload["correlation_id"] = cid
        payload.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(payload, default=str))


def configure_logging(service: str, level: str = "INFO") -> None:
    """Route every logger (ours, FastStream's, uvicorn's) through one JSON handler."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "faststream", "faststream.access"):
        lg = logging.getLogger(name)
        lg.handlers[:] = []
        lg.propagate = True
    # httpx logs every request a client makes at INFO (most of the bots' log, and the gateway's
    # access log says the same); shown only when debugging
    logging.getLogger("httpx").setLevel(logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING)
