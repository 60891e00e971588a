"""Bots fill a Sit & Go someone waits in: once a tournament the settings name (an id prefix)
has taken registrations for `FELT_BOTS_FILL_SECONDS` without filling, bots take its empty
seats, so a newcomer plays one within minutes instead of waiting for five other people."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from felt_client import ApiError, FeltClient

log = logging.getLogger("felt.bots.fill")

Enter = Callable[[str, int], Awaitable[Any]]


def due(
    listed: list[dict[str, Any]], prefixes: list[str], waiting: dict[str, float], now: float, wait: float
) -> dict[str, int]:
    """The tournaments to fill now and their empty seats; `waiting` keeps when each began to wait
    (a Sit & Go with someone registered and a seat empty)."""
    open_ = {
        t["tournamentId"]: t["maxEntrants"] - t["entrants"]
        for t in listed
        if any(t["tournamentId"].startswith(p) for p in prefixes)
        and t["startsAt"] is None
        and 0 < t["entrants"] < t["maxEntrants"]
    }
    for tid in list(waiting):
        if tid not in open_:
            del waiting[tid]
    for tid in open_:
        waiting.setdefault(tid, now)
    return {tid: empty for tid, empty in open_.items() if now - waiting[tid] >= wait}


async def keep_filling(lobby: FeltClient, enter: Enter, prefixes: list[str], wait: float) -> None:
    """Look at the open tournaments every few seconds and fill those waited in long enough."""
    waiting: dict[str, float] = {}
    loop = asyncio.get_running_loop()
    while True:
        try:
            listed = await lobby.tournaments("registering")
            for tid, empty in due(listed, prefixes, waiting, loop.time(), wait).items():
                await enter(tid, empty)
                log.info("bots fill a tournament", extra={"tournament_id": tid, "count": empty})
        except ApiError as exc:
            log.warning("tournament fill failed", extra={"code": exc.code, "error": exc.message})
        await asyncio.sleep(min(wait, 5.0) or 1.0)
