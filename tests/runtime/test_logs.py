"""What the services' JSON logs keep: a client library's line per request is left out unless debugging."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from felt_runtime.logs import configure_logging


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root, httpx = logging.getLogger(), logging.getLogger("httpx")
    handlers, level, httpx_level = root.handlers[:], root.level, httpx.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    httpx.setLevel(httpx_level)


def logged(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [json.loads(line)["msg"] for line in capsys.readouterr().err.splitlines()]


def test_a_clients_line_per_request_is_left_out_at_info(capsys, restore_logging) -> None:
    configure_logging("bots", "INFO")
    logging.getLogger("httpx").info('HTTP Request: POST http://127.0.0.1/api/v2/poker/tables/t/actions "200 OK"')
    logging.getLogger("httpx").warning("a warning still shows")
    logging.getLogger("felt.bots").info("the bot's own line")
    assert logged(capsys) == ["a warning still shows", "the bot's own line"]


def test_debugging_shows_the_clients_requests(capsys, restore_logging) -> None:
    configure_logging("bots", "DEBUG")
    logging.getLogger("httpx").info("HTTP Request: GET http://127.0.0.1/api/v2/me")
    assert logged(capsys) == ["HTTP Request: GET http://127.0.0.1/api/v2/me"]
