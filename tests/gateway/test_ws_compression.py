"""WebSockets are not compressed unless the operator asks (`FELT_HTTP_WS_COMPRESSION`).

A client offers per-message deflate (browsers and the `websockets` library do by default); the
gateway declines it by default — its frames are ~500 bytes of JSON, and the compressor cost the
gateway 7% of its CPU per action and half its memory per socket at 2,000 seated
(docs/benchmarks.md) — and accepts it when the setting is on. Either way the socket works."""

from __future__ import annotations

import json

import pytest
import websockets

from felt_runtime.settings import Settings
from tests.support.gateway import Stack, socket_url
from tests.support.services import ServiceRunner

EXTENSIONS = "Sec-WebSocket-Extensions"


async def _negotiated(ws_url: str) -> str | None:
    """The extensions the gateway accepted for a client offering per-message deflate; the socket
    also answers a frame (an unauthenticated `ping` is refused, which is an answer)."""
    async with websockets.connect(ws_url, compression="deflate") as ws:
        await ws.send(json.dumps({"type": "ping", "requestId": "r1"}))
        assert json.loads(await ws.recv())["code"] == "unauthorized"
        return ws.response.headers.get(EXTENSIONS)


async def test_a_socket_offering_deflate_is_not_compressed_by_default(stack: Stack) -> None:
    if not stack.database_url.startswith("sqlite"):
        pytest.skip("the same HTTP server whatever the database")
    assert Settings().http_ws_compression is False
    assert await _negotiated(stack.ws_url) is None


async def test_an_operator_can_turn_compression_on(services: ServiceRunner) -> None:
    gateway = services.start("gateway", felt_http_ws_compression="true")
    negotiated = await _negotiated(socket_url(gateway.url))
    assert negotiated is not None and negotiated.startswith("permessage-deflate")
