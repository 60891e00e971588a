"""WebSocket framing: authentication, heartbeats, bad frames and floods (no table needed)."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from tests.support.gateway import sign_up


async def recv(ws, timeout: float = 5.0) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def connect(stack, token: str):
    ws = await websockets.connect(stack.ws_url, max_size=2**22)
    await ws.send(json.dumps({"type": "auth", "token": token}))
    hello = await recv(ws)
    assert hello["type"] == "hello", hello
    return ws, hello


async def test_ws_auth_by_frame_or_query_and_refusal(stack, http) -> None:
    owner = await sign_up(http)
    ws, hello = await connect(stack, owner["token"])
    assert hello["participantId"] == owner["participantId"] and hello["kind"] == "HUMAN"
    await ws.send(json.dumps({"type": "ping", "t": 7}))
    assert await recv(ws) == {"type": "pong", "t": 7}
    await ws.close()
    async with websockets.connect(stack.ws_url + "?token=" + owner["token"]) as ws2:
        assert (await recv(ws2))["type"] == "hello"
    for first in ({"type": "auth", "token": "felt_t_forged"}, {"type": "ping"}, "garbage"):
        async with websockets.connect(stack.ws_url) as bad:
            await bad.send(first if isinstance(first, str) else json.dumps(first))
            err = await recv(bad)
            assert err["type"] == "error" and err["code"] == "unauthorized"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await recv(bad)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_bad_frames_get_error_frames_and_the_connection_carries_on(stack, http) -> None:
    owner = await sign_up(http)
    ws, _ = await connect(stack, owner["token"])
    other, _ = await connect(stack, owner["token"])
    bad_frames = [
        ("{not json", "malformed", "not_json"),
        (json.dumps([1, 2]), "malformed", "no_type"),
        (json.dumps({"type": "teleport"}), "malformed", "unknown_type"),
        (json.dumps({"type": "subscribe"}), "validation", None),
        (json.dumps({"type": "act", "tableId": "t1", "action": {"type": "bet"}}), "validation", None),
        (json.dumps({"type": "chat", "tableId": "t1", "text": "x" * 20000}), "malformed", "too_large"),
    ]
    for raw, code, reason in bad_frames:
        await ws.send(raw)
        err = await recv(ws)
        assert err["type"] == "error" and err["code"] == code, (raw[:60], err)
        if reason:
            assert err["details"]["reason"] == reason
    await ws.send(b"\x00\x01")
    assert (await recv(ws))["code"] == "malformed"
    await ws.send(json.dumps({"type": "ping", "t": 1}))
    assert (await recv(ws))["type"] == "pong"  # still alive
    await other.send(json.dumps({"type": "ping", "t": 2}))
    assert (await recv(other))["type"] == "pong"
    await ws.close()
    await other.close()


async def test_a_flood_is_throttled_then_closed_without_touching_other_connections(stack, http) -> None:
    owner = await sign_up(http)
    flooder, hello = await connect(stack, owner["token"])
    calm, _ = await connect(stack, owner["token"])
    credits = hello["credits"]
    for i in range(credits * 3):
        try:
            await flooder.send(json.dumps({"type": "ping", "t": i}))
        except websockets.ConnectionClosed:
            break
    got: list[dict] = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            got.append(await recv(flooder))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    assert any(f["type"] == "error" and f["code"] == "throttled" for f in got)
    assert sum(1 for f in got if f["type"] == "pong") <= credits + 1
    await calm.send(json.dumps({"type": "ping", "t": 99}))
    assert await recv(calm) == {"type": "pong", "t": 99}
    await calm.close()


async def test_every_frame_dropped_over_the_budget_is_answered_with_its_request_id(stack, http) -> None:
    """A client waiting on a command's reply never hangs: each frame over the budget gets its
    own `throttled` error (its `requestId`, `retry_after`), and after the wait it is served."""
    owner = await sign_up(http)
    ws, hello = await connect(stack, owner["token"])
    credits = hello["credits"]
    for i in range(credits):
        await ws.send(json.dumps({"type": "ping", "t": i}))
    for i in range(3):
        await ws.send(json.dumps({"type": "subscribe", "tableId": "t1", "requestId": f"r{i}"}))
    got = [await recv(ws) for _ in range(credits + 3)]
    throttled = [f for f in got if f["type"] == "error" and f["code"] == "throttled"]
    assert len(throttled) >= 3 and {"r0", "r1", "r2"} <= {f.get("requestId") for f in throttled}
    assert all(f["details"]["retry_after"] > 0 for f in throttled)
    await asyncio.sleep(throttled[-1]["details"]["retry_after"] * 2)
    await ws.send(json.dumps({"type": "ping", "t": 999}))
    assert await recv(ws) == {"type": "pong", "t": 999}
    await ws.close()
