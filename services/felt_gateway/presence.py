"""Connection presence per (table, participant), shared by every gateway process in Valkey.

The table's disconnect grace is driven by it: when a participant's last socket watching a
table closes — on any gateway — the table is told `disconnect` (its grace deadline starts);
when the first socket anywhere opens again, `reconnect`. Agents over REST have no presence.

Each gateway counts its own sockets in memory and holds one member (its process id) in the
sorted set `felt:presence:<table>:<participant>`, scored with an expiry it renews every
`ttl / 3` seconds, so a gateway that died stops counting after `ttl`. Adding or removing a
member and counting the live ones is one MULTI/EXEC transaction: of two gateways closing the
last sockets at once, exactly one sees zero and declares the disconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter

from redis.asyncio import Redis

from felt_contracts.base import new_id
from felt_contracts.table import Disconnect, Reconnect
from felt_gateway.clients import Bus
from felt_runtime.bus import BusError

log = logging.getLogger("felt.gateway.presence")

TTL_SECONDS = 30.0


def _key(table_id: str, participant_id: str) -> str:
    return f"felt:presence:{table_id}:{participant_id}"


class Presence:
    def __init__(self, bus: Bus, redis: Redis, ttl: float = TTL_SECONDS) -> None:
        self.bus = bus
        self.redis = redis
        self.ttl = ttl
        self.gateway_id = new_id()
        self.count: Counter[tuple[str, str]] = Counter()  # this process's sockets
        self._renewer: asyncio.Task[None] | None = None

    async def watching(self, table_id: str, participant_id: str) -> bool:
        """Whether any gateway has a live socket of this participant on this table."""
        if self.count[(table_id, participant_id)] > 0:
            return True
        return await self.redis.zcount(_key(table_id, participant_id), f"({time.time()}", "+inf") > 0

    async def opened(self, table_id: str, participant_id: str) -> None:
        key = (table_id, participant_id)
        self.count[key] += 1
        if self.count[key] == 1 and await self._change(key, add=True) == 1:
            await self._tell(table_id, Reconnect(participant_id=participant_id))

    async def closed(self, table_id: str, participant_id: str) -> None:
        key = (table_id, participant_id)
        if self.count[key] <= 0:
            return
        self.count[key] -= 1
        if self.count[key] == 0:
            del self.count[key]
            if await self._change(key, add=False) == 0:
                await self._tell(table_id, Disconnect(participant_id=participant_id))

    async def _change(self, key: tuple[str, str], *, add: bool) -> int:
        """Add or remove this gateway's member; the number of live members after it."""
        now, rkey = time.time(), _key(*key)
        async with self.redis.pipeline(transaction=True) as tx:
            tx.zremrangebyscore(rkey, "-inf", now)
            if add:
                tx.zadd(rkey, {self.gateway_id: now + self.ttl})
            else:
                tx.zrem(rkey, self.gateway_id)
            tx.zcard(rkey)
            tx.expire(rkey, int(self.ttl) + 1)
            results = await tx.execute()
        return int(results[-2])

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                async with self.redis.pipeline(transaction=False) as p:
                    for key in list(self.count):
                        p.zadd(_key(*key), {self.gateway_id: time.time() + self.ttl})
                        p.expire(_key(*key), int(self.ttl) + 1)
                    await p.execute()
            except Exception:  # Valkey away: the next round retries
                log.warning("presence not renewed", exc_info=True)

    async def start(self) -> None:
        self._renewer = asyncio.create_task(self._renew(), name="presence-renew")

    async def stop(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer

    async def _tell(self, table_id: str, command: Disconnect | Reconnect) -> None:
        try:
            await self.bus.table(table_id, command, timeout=3)
        except BusError as exc:  # not seated there, or the table is away: nothing to drive
            log.debug("presence not applied", extra={"table_id": table_id, "code": exc.code.value})
