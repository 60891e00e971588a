"""The long-poll is answered by the gateway's own ASGI layer ahead of FastAPI's stack (a pending
long-poll held through FastAPI was 22 coroutines, the bulk of the gateway's young garbage at 2,000
seated; longpoll.py), with FastAPI's answers: its errors, and its 422 for a query it declines."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from felt_gateway import poker
from felt_gateway.app import make
from felt_gateway.longpoll import LongPolls
from felt_runtime.settings import Settings


async def call(layer: Any, path: str, query: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> dict:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "headers": headers or [],
        "app": make(Settings())[0],
    }
    await layer(scope, receive, send)
    return {"status": sent[0]["status"], "body": orjson.loads(sent[1]["body"])} if sent else {}


@pytest.fixture
def layer() -> tuple[LongPolls, list[str]]:
    passed: list[str] = []

    async def fastapi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        passed.append(scope["path"])

    return LongPolls(fastapi, path=poker.EVENTS_PATH), passed


EVENTS = "/api/v2/poker/tables/nlhe-1-a/events"


async def test_a_valid_long_poll_is_answered_by_the_layer_with_fastapis_errors(layer) -> None:
    longpolls, passed = layer
    answer = await call(longpolls, EVENTS, b"after=3&wait=20&wake=mine")
    assert passed == []
    assert answer["status"] == 401 and answer["body"]["code"] == "unauthorized"
    wrong = await call(longpolls, EVENTS, b"wait=1", [(b"authorization", b"Bearer " + b"x" * 201)])
    assert passed == [] and wrong["status"] == 401


@pytest.mark.parametrize("query", [b"after=-1", b"wait=121", b"limit=0", b"wake=never", b"after=", b"after=x"])
async def test_a_query_that_fails_validation_goes_on_to_fastapi(layer, query: bytes) -> None:
    longpolls, passed = layer
    assert await call(longpolls, EVENTS, query) == {}
    assert passed == [EVENTS]


@pytest.mark.parametrize(
    "path", ["/api/v2/poker/tables/nlhe-1-a", "/api/v2/poker/tables/a/b/events", "/api/v2/poker/tables//events"]
)
async def test_other_paths_go_on_to_fastapi(layer, path: str) -> None:
    longpolls, passed = layer
    assert await call(longpolls, path, b"") == {}
    assert passed == [path]


def test_the_gateway_puts_the_layer_inside_correlate_and_ahead_of_fastapis_handlers() -> None:
    app = make(Settings())[0]
    layers = [m.cls.__name__ for m in app.user_middleware]
    assert layers == ["Correlate", "LongPolls"]
