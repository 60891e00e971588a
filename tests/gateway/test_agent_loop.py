"""The agents' loop — the long-poll and the action — is answered by the gateway's own ASGI layer
ahead of FastAPI's stack (agent_loop.py), with FastAPI's answers: its errors, and its own 400 /
422 for what the layer declines, to which the body already read is handed back intact. What the
two requests do is tested over the real port by the rest of this folder; here, who answers."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from felt_gateway.agent_loop import MAX_BODY, AgentLoop
from felt_gateway.app import make
from felt_runtime.settings import Settings

EVENTS = "/api/v2/poker/tables/nlhe-1-a/events"
ACTIONS = "/api/v2/poker/tables/nlhe-1-a/actions"
JSON = [(b"content-type", b"application/json")]
FOLD = orjson.dumps({"type": "fold", "handId": "h1", "turnId": 3})


class FastAPIStandIn:
    """What the layer hands on: the path and the whole body FastAPI would read."""

    def __init__(self) -> None:
        self.got: list[tuple[str, bytes]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        self.got.append((scope["path"], body))


async def call(
    layer: AgentLoop,
    method: str,
    path: str,
    query: bytes = b"",
    headers: list[tuple[bytes, bytes]] | None = None,
    chunks: tuple[bytes, ...] = (b"",),
) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []
    incoming = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "headers": headers or [],
        "app": make(Settings())[0],
    }
    await layer(scope, receive, send)
    return {"status": sent[0]["status"], "body": orjson.loads(sent[1]["body"])} if sent else {}


@pytest.fixture
def fastapi() -> FastAPIStandIn:
    return FastAPIStandIn()


@pytest.fixture
def layer(fastapi: FastAPIStandIn) -> AgentLoop:
    return AgentLoop(fastapi)


async def test_a_valid_long_poll_is_answered_by_the_layer_with_fastapis_errors(layer, fastapi) -> None:
    answer = await call(layer, "GET", EVENTS, b"after=3&wait=20&wake=mine")
    assert fastapi.got == []
    assert answer["status"] == 401 and answer["body"]["code"] == "unauthorized"
    wrong = await call(layer, "GET", EVENTS, b"wait=1", [(b"authorization", b"Bearer " + b"x" * 201)])
    assert fastapi.got == [] and wrong["status"] == 401


async def test_a_valid_action_is_answered_by_the_layer_whatever_its_chunks(layer, fastapi) -> None:
    answer = await call(layer, "POST", ACTIONS, headers=JSON, chunks=(FOLD[:7], FOLD[7:]))
    assert fastapi.got == []
    assert answer["status"] == 401 and answer["body"]["code"] == "unauthorized"
    keyed = JSON + [(b"idempotency-key", b"k" * 200), (b"content-type", b"text/plain")]
    assert (await call(layer, "POST", ACTIONS, headers=keyed, chunks=(FOLD,)))["status"] == 401
    assert fastapi.got == []


@pytest.mark.parametrize("query", [b"after=-1", b"wait=121", b"limit=0", b"wake=never", b"after=", b"after=x"])
async def test_a_query_that_fails_validation_goes_on_to_fastapi(layer, fastapi, query: bytes) -> None:
    assert await call(layer, "GET", EVENTS, query) == {}
    assert fastapi.got == [(EVENTS, b"")]


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        (JSON, b'{"type": "fold"'),  # not JSON
        (JSON, b'{"type": "bet"}'),  # a bet without an amount
        (JSON, b'{"type": "fold", "turnId": "3"}'),  # a turn id that is not an integer
        (JSON, b""),
        (JSON, b"[1, 2]"),
        ([(b"content-type", b"text/plain")], FOLD),
        ([], FOLD),
        (JSON + [(b"idempotency-key", b"k" * 201)], FOLD),
        (JSON, b'{"type": "fold"' + b" " * MAX_BODY + b"}"),  # a valid action, but larger than any
    ],
)
async def test_a_body_fastapi_must_judge_goes_on_to_it_whole(layer, fastapi, headers, body: bytes) -> None:
    chunks = (body[: len(body) // 2], body[len(body) // 2 :])
    assert await call(layer, "POST", ACTIONS, headers=headers, chunks=chunks) == {}
    assert fastapi.got == [(ACTIONS, body)]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v2/poker/tables/nlhe-1-a"),
        ("GET", "/api/v2/poker/tables/a/b/events"),
        ("GET", "/api/v2/poker/tables//events"),
        ("POST", EVENTS),
        ("GET", ACTIONS),
        ("POST", "/api/v2/poker/tables/nlhe-1-a/join"),
    ],
)
async def test_other_requests_go_on_to_fastapi(layer, fastapi, method: str, path: str) -> None:
    assert await call(layer, method, path, headers=JSON, chunks=(FOLD,)) == {}
    assert fastapi.got == [(path, FOLD)]


def test_the_gateway_puts_the_layer_inside_metrics_and_correlate_and_ahead_of_fastapis_handlers() -> None:
    app = make(Settings())[0]
    assert [m.cls.__name__ for m in app.user_middleware] == ["HttpMetrics", "Correlate", "AgentLoop"]
