"""An idle HTTP connection stays open longer than clients keep one in their pools.

A server that closes idle connections when the client's pool expires them (uvicorn's 5 s and
httpx's 5 s) races the client: a request sent on a connection the server is closing meets a
reset (`httpx.ReadError`, and the kernel's `TCPAbortOnClose`), as a load generator's burst of
joins does on a busy machine."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest

from tests.support.gateway import Stack

IDLE_SECONDS = 6.0  # past uvicorn's own default (5 s) and httpx's pool expiry (5 s)


async def _healthz(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> int:
    """One `GET /healthz` on this connection; its status (the body is read to the end)."""
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: felt\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    lines = head.split(b"\r\n")
    length = next(int(h.split(b":", 1)[1]) for h in lines if h.lower().startswith(b"content-length:"))
    await reader.readexactly(length)
    return int(lines[0].split(b" ", 2)[1])


async def test_an_idle_connection_outlives_the_clients_pool_expiry(stack: Stack) -> None:
    if not stack.database_url.startswith("sqlite"):
        pytest.skip("the same HTTP server whatever the database")
    url = urlsplit(stack.url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        assert await _healthz(reader, writer) == 200
        await asyncio.sleep(IDLE_SECONDS)
        assert await _healthz(reader, writer) == 200, "the gateway closed a connection idle for 6 s"
    finally:
        writer.close()
