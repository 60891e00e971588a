"""The load generators' HTTP client for an agent's hot loop (long-poll the events, act).

httpx costs the generator about 0.8 ms of CPU per request (anyio and httpcore's machinery) where
aiohttp costs about 0.13 ms (side by side against one plain ASGI app): with httpx the generator,
not the room, would be the busiest process of a REST run. Setup (sign-ups, keys, joins) keeps the
tests' httpx helpers; only the loop that runs for the whole measured window uses this. Its JSON is
orjson's: the standard library's decoder costs the generator several times more.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import aiohttp
import orjson


class AgentHTTP:
    """One agent's connections (a long-poll and an action at a time): a small pool of its own, so
    that no request scans the connections of every other agent."""

    def __init__(self, base_url: str) -> None:
        self._session = aiohttp.ClientSession(
            base_url,
            timeout=aiohttp.ClientTimeout(total=60),
            connector=aiohttp.TCPConnector(limit=4),
            json_serialize=lambda o: orjson.dumps(o).decode(),
        )

    async def __aenter__(self) -> AgentHTTP:
        return self

    async def __aexit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self._session.close()

    async def get(self, path: str, params: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        async with self._session.get(path, params=params, headers=headers) as r:
            return r.status, await r.json(loads=orjson.loads)

    async def post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        async with self._session.post(path, json=body, headers=headers) as r:
            return r.status, await r.json(loads=orjson.loads)
