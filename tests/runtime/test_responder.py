"""`responder`: a plain nats-py queue subscription answering every request with a `Reply`
envelope, with the concurrency its registration states, and a graceful drain at shutdown.

The demo service serves one handler three ways: `ECHO` (one at a time), `FAST_ECHO` (16 in
flight) and `SERIAL_ECHO` (one at a time)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from faststream.nats import NatsBroker

from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError, call
from tests.support.demo import ECHO, FAST_ECHO, SERIAL_ECHO, Echo, Echoed

DEMO = "tests.support.demo"
SLOW = 0.6


async def _raw(broker: NatsBroker, subject: str, body: bytes | dict[str, Any]) -> dict[str, Any]:
    reply = await broker.request(body, subject, timeout=5)
    return await reply.decode()


async def test_responder_replies_with_the_reply_envelope(services, broker) -> None:
    """A result, a refusal and each kind of bad body, as the caller receives them, on every subject."""
    services.start("demo", module=DEMO)
    ok = Echo(text="hi", message_id="m1", correlation_id="c1").model_dump(mode="json")
    refused = Echo(text="x", fail="refuse", message_id="m2", correlation_id="c2").model_dump(mode="json")
    bad: list[tuple[bytes, list[str], str]] = [
        (b"not json{", [], "json_invalid"),
        (b'{"text": 5}', ["text"], "string_type"),
        (b'{"text": "x", "surprise": 1}', ["surprise"], "extra_forbidden"),
        (b'{"text": "x", "sleep": -1}', ["sleep"], "greater_than_equal"),
    ]
    for subject in (ECHO, FAST_ECHO, SERIAL_ECHO):
        assert await _raw(broker, subject, ok) == {"ok": True, "result": {"text": "hi", "rows": 0}, "error": None}
        assert await _raw(broker, subject, refused) == {
            "ok": False,
            "result": None,
            "error": {"code": "conflict", "message": "refused as asked", "details": {"why": "test"}},
        }
        for body, loc, kind in bad:
            reply = await _raw(broker, subject, body)
            assert reply["ok"] is False and reply["result"] is None
            assert reply["error"]["code"] == "malformed" and reply["error"]["message"] == "invalid Echo"
            [error] = reply["error"]["details"]["errors"]
            assert (error["loc"], error["type"]) == (loc, kind) and error["msg"]
    assert (await call(broker, FAST_ECHO, Echo(text="hi"), Echoed)).text == "hi"


async def test_responder_error_codes(services, broker) -> None:
    services.start("demo", module=DEMO)
    for bad in (b"not json{", b'{"text": 5}', b'{"text": "x", "surprise": 1}'):
        body = await _raw(broker, FAST_ECHO, bad)
        assert body["ok"] is False and body["error"]["code"] == "malformed"
    with pytest.raises(BusError) as refused:
        await call(broker, FAST_ECHO, Echo(text="x", fail="refuse"), Echoed)
    assert refused.value.code is ErrorCode.CONFLICT and refused.value.details == {"why": "test"}
    with pytest.raises(BusError) as crashed:
        await call(broker, FAST_ECHO, Echo(text="x", fail="crash", correlation_id="crash-1"), Echoed)
    assert crashed.value.code is ErrorCode.INTERNAL
    assert crashed.value.details == {"correlation_id": "crash-1"}


async def test_responder_echoes_the_correlation_id_header(services, broker) -> None:
    services.start("demo", module=DEMO)
    req = Echo(text="hi", correlation_id="corr-42")
    reply = await broker.request(req.model_dump(mode="json"), FAST_ECHO, timeout=5, correlation_id="corr-42")
    assert reply.correlation_id == "corr-42"
    assert reply.headers.get("content-type") == "application/json"


async def test_responder_runs_slow_requests_concurrently(services, broker) -> None:
    services.start("demo", module=DEMO)
    n = 10
    started = time.monotonic()
    replies = await asyncio.gather(*(call(broker, FAST_ECHO, Echo(text=str(i), sleep=SLOW), Echoed) for i in range(n)))
    elapsed = time.monotonic() - started
    assert [r.text for r in replies] == [str(i) for i in range(n)]
    assert elapsed < 2.5 * SLOW, f"{n} requests of {SLOW}s took {elapsed:.2f}s (serial would be {n * SLOW:.1f}s)"


async def test_responder_concurrency_one_serves_in_arrival_order(services, broker) -> None:
    services.start("demo", module=DEMO)
    finished: list[int] = []
    sleeps = [0.4, 0.2, 0.0]

    async def one(i: int) -> None:
        await call(broker, SERIAL_ECHO, Echo(text=str(i), sleep=sleeps[i]), Echoed)
        finished.append(i)

    started = time.monotonic()
    tasks = []
    for i in range(len(sleeps)):
        tasks.append(asyncio.create_task(one(i)))
        await asyncio.sleep(0.05)  # sent in this order
    await asyncio.gather(*tasks)
    # concurrently the shortest would finish first; one at a time they finish in arrival order
    assert finished == [0, 1, 2]
    assert time.monotonic() - started >= sum(sleeps)


async def test_responder_answers_in_flight_requests_on_graceful_shutdown(services, broker) -> None:
    svc = services.start("demo", module=DEMO)
    pending = [
        asyncio.create_task(call(broker, FAST_ECHO, Echo(text=str(i), sleep=1.5), Echoed, timeout=10)) for i in range(5)
    ]
    await asyncio.sleep(0.5)  # all five are in their handlers
    assert svc.process is not None
    svc.process.terminate()  # SIGTERM: lifespan shutdown drains the responders first
    replies = await asyncio.gather(*pending)
    assert sorted(r.text for r in replies) == [str(i) for i in range(5)]
    await asyncio.to_thread(svc.process.wait, 15)
    assert svc.process.returncode in (0, -15)
    assert '"level": "ERROR"' not in svc.tail(20000)
    # and nobody serves the subject any more
    with pytest.raises(BusError) as gone:
        await call(broker, FAST_ECHO, Echo(text="late"), Echoed, timeout=1)
    assert gone.value.code is ErrorCode.UNAVAILABLE
