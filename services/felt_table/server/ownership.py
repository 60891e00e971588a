"""Which table-service replica owns which table: a lease per table in the JetStream KV bucket
`felt-table-leases` (key: the table, value: the replica id), whose TTL makes a dead replica's
leases lapse. Taking a lease is `kv.create` (nobody holds it) and keeping it is `kv.update` at
the revision this replica last wrote (compare-and-set): if anyone else wrote since, the update
fails and the lease is lost at once. The revision is the lease's fencing token.

A replica renews all its leases every `ttl / 3`; one it cannot renew it gives up (`on_lost`
stops the table's actor and its subscription before anything else runs for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError
from felt_runtime.metrics import LEASES, TABLES_OWNED

log = logging.getLogger("felt.table.ownership")

BUCKET = subjects.TABLE_LEASES_BUCKET  # named with the bus subjects: its permissions are generated


class Leases:
    def __init__(self, replica_id: str, ttl: float, on_lost: Callable[[str], Awaitable[None]]) -> None:
        self.replica_id = replica_id
        self.ttl = ttl
        self.on_lost = on_lost
        self.held: dict[str, int] = {}  # table -> the revision this replica wrote last
        self.epochs: dict[str, int] = {}  # table -> the revision it was acquired at (the fencing token)
        self.renewed: dict[str, float] = {}  # table -> monotonic time of the write that last renewed it
        self.kv: Any = None
        self._renewer: asyncio.Task[None] | None = None

    async def open(self, js: Any, replicas: int = 1) -> None:
        self.kv = await js.create_key_value(
            KeyValueConfig(bucket=BUCKET, history=1, ttl=self.ttl, storage=StorageType.FILE, replicas=replicas)
        )

    async def acquire(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it (or this replica, from before a restart)."""
        started = time.monotonic()
        try:
            rev = await self.kv.create(table_id, self.replica_id.encode())
            event = "acquired"
        except KeyWrongLastSequenceError:
            try:
                entry = await self.kv.get(table_id)
            except KeyNotFoundError:
                return False  # lapsed in between: the next sweep tries again
            if entry.value is None or entry.value.decode() != self.replica_id:
                return False
            try:  # our own lease from before a restart of this replica
                rev = await self.kv.update(table_id, self.replica_id.encode(), last=entry.revision)
            except KeyWrongLastSequenceError:
                return False
            event = "taken_over"
        self.held[table_id] = self.epochs[table_id] = rev
        self.renewed[table_id] = started
        LEASES.labels(event).inc()
        TABLES_OWNED.set(len(self.held))
        return True

    def token(self, table_id: str) -> int:
        """The fencing token every wallet call of the table carries: the revision the lease was
        acquired at (a later owner's is always higher). Refused here already when the lease is
        not ours or may have lapsed (last renewed 0.9 TTL ago, e.g. after a SIGSTOP): the
        wallet's check is the guarantee, this one spares the round trip."""
        epoch, renewed = self.epochs.get(table_id), self.renewed.get(table_id)
        if epoch is None or renewed is None or time.monotonic() - renewed > 0.9 * self.ttl:
            raise BusError(ErrorCode.UNAVAILABLE, "this replica does not hold the table's lease", table_id=table_id)
        return epoch

    async def owner(self, table_id: str) -> str | None:
        try:
            entry = await self.kv.get(table_id)
        except KeyNotFoundError:
            return None
        return entry.value.decode() if entry.value else None

    async def owners(self) -> dict[str, str]:
        """Every live lease: table -> replica."""
        try:
            keys = await self.kv.keys()
        except NoKeysError:
            return {}
        out = {}
        for key in keys:
            if (owner := await self.owner(key)) is not None:
                out[key] = owner
        return out

    async def renew_all(self) -> None:
        for table_id, rev in list(self.held.items()):
            started = time.monotonic()
            try:
                self.held[table_id] = await self.kv.update(table_id, self.replica_id.encode(), last=rev)
                self.renewed[table_id] = started
            except (KeyWrongLastSequenceError, KeyNotFoundError):
                await self.lose(table_id)

    async def lose(self, table_id: str) -> None:
        self.epochs.pop(table_id, None)
        self.renewed.pop(table_id, None)
        if self.held.pop(table_id, None) is None:
            return
        LEASES.labels("lost").inc()
        TABLES_OWNED.set(len(self.held))
        log.warning("lease lost: the table stops here", extra={"table_id": table_id})
        await self.on_lost(table_id)

    async def release(self, table_id: str) -> None:
        """Give a lease up (graceful stop): another replica may take the table at once."""
        rev = self.held.pop(table_id, None)
        self.epochs.pop(table_id, None)
        self.renewed.pop(table_id, None)
        if rev is not None:
            with contextlib.suppress(KeyWrongLastSequenceError, KeyNotFoundError):
                await self.kv.delete(table_id, last=rev)
            LEASES.labels("released").inc()
            TABLES_OWNED.set(len(self.held))

    def start(self, sweep: Callable[[], Awaitable[None]]) -> None:
        async def loop() -> None:
            while True:
                await asyncio.sleep(self.ttl / 3)
                try:
                    await self.renew_all()
                    await sweep()
                except Exception:  # NATS away: leases lapse, the next round retries
                    log.warning("lease round failed", exc_info=True)

        self._renewer = asyncio.create_task(loop(), name="table-leases")

    async def stop(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
