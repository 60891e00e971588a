"""Tables over several table-service replicas (on when `FELT_TABLE_LEASE_SECONDS` > 0).

Each table is run by the one replica holding its lease (`ownership.Leases`). Every replica
announces itself (with how many tables it runs) in the KV bucket `felt-table-replicas`, with
the same TTL as the leases. Every `ttl / 3` a replica renews its leases and sweeps: it takes
free tables up to its fair share (all known tables / live replicas) and applies the restart
policy to each (`TableActor.reset`: the interrupted hand cancelled and refunded exactly once by
the wallet, seats cleared), and hands idle tables beyond its share back, so tables spread over
the replicas and a dead replica's tables are taken within about one TTL and one sweep.

Commands reach only the owner: the queue-group subscriptions (`felt.table.cmd.*`, the timer's
events, create, close, the lobby) land on any replica, which forwards what is not its own to
the owner's subjects (`subjects.table_replica`). New tables go to the least-loaded replica.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
from typing import Any

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError, NoKeysError

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import (
    CloseTable,
    CreateTable,
    ListTables,
    TableConfig,
    TableList,
    TableRequest,
    TableResult,
    TableSummary,
)
from felt_runtime.bus import BusError, call
from felt_table.server.ownership import Leases

log = logging.getLogger("felt.table.replicas")

MEMBERS = subjects.TABLE_REPLICAS_BUCKET  # named with the bus subjects: its permissions are generated


def default_replica_id(port: int) -> str:
    """Stable across a restart of the same pod/process slot, so a restarted replica takes its own
    leases back at once instead of waiting for them to lapse."""
    raw = f"{socket.gethostname()}-{port}"
    return "".join(char if char.isalnum() or char in "-_" else "-" for char in raw)[:120]


class Replica:
    def __init__(self, rooms: Any, broker: Any, replica_id: str, ttl: float, kv_replicas: int) -> None:
        self.rooms = rooms
        self.broker = broker
        self.id = replica_id
        self.ttl = ttl
        self.kv_replicas = kv_replicas
        self.leases = Leases(replica_id, ttl, self._lost)
        self.members: Any = None
        self.known: dict[str, TableConfig] = {}
        self.load_known: Any = None  # async () -> dict[str, TableConfig]: every table of the room
        self._lock = asyncio.Lock()

    async def open(self, js: Any) -> None:
        await self.leases.open(js, self.kv_replicas)
        self.members = await js.create_key_value(
            KeyValueConfig(bucket=MEMBERS, history=1, ttl=self.ttl, storage=StorageType.FILE, replicas=self.kv_replicas)
        )

    async def start(self) -> None:
        await self._announce()
        await self.sweep()
        self.leases.start(self.sweep)

    async def stop(self) -> None:
        """Graceful: stop the renewals, then give every lease back so another replica takes the
        tables at once (its restart policy cancels what was running)."""
        await self.leases.stop()
        for tid in list(self.leases.held):
            actor = self.rooms.actors.pop(tid, None)
            if actor is not None:
                await actor.stop()
            await self.leases.release(tid)
        try:
            await self.members.delete(self.id)
        except Exception:  # noqa: BLE001 - NATS away: the entry lapses by itself
            pass

    # --- membership and the sweep ---------------------------------------------------------

    async def _announce(self) -> None:
        await self.members.put(self.id, str(len(self.leases.held)).encode())

    async def live(self) -> dict[str, int]:
        """Live replicas and how many tables each runs."""
        try:
            keys = await self.members.keys()
        except NoKeysError:
            keys = []
        out = {}
        for key in keys:
            try:
                out[key] = int((await self.members.get(key)).value or b"0")
            except (KeyNotFoundError, ValueError):
                continue
        out.setdefault(self.id, len(self.leases.held))
        return out

    async def sweep(self) -> None:
        async with self._lock:
            await self._announce()
            self.known = await self.load_known()
            live = await self.live()
            fair = math.ceil(len(self.known) / max(1, len(live)))
            owners = await self.leases.owners()
            for tid, config in self.known.items():
                if len(self.leases.held) >= fair:
                    break
                if tid not in owners and tid not in self.leases.held and await self.leases.acquire(tid):
                    await self._run(config)
            await self._hand_back(fair)
            await self._announce()

    async def _run(self, config: TableConfig) -> None:
        """Open a table this replica now owns: the restart policy first (Rooms.open)."""
        try:
            await self.rooms.open(config)
            log.info("table owned", extra={"table_id": config.table_id, "replica": self.id})
        except Exception:
            log.exception("table not opened; lease given back", extra={"table_id": config.table_id})
            await self.leases.release(config.table_id)

    async def _hand_back(self, fair: int) -> None:
        """Beyond the fair share: give back tables nobody sits at (nothing to interrupt)."""
        for tid in list(self.leases.held):
            if len(self.leases.held) <= fair:
                return
            actor = self.rooms.actors.get(tid)
            if actor is not None and not actor.table.seats:
                self.rooms.actors.pop(tid, None)
                await actor.stop()
                await self.leases.release(tid)

    async def _lost(self, table_id: str) -> None:
        """Fencing inside the process: the table's actor stops before anything else runs for it."""
        actor = self.rooms.actors.pop(table_id, None)
        if actor is not None:
            await actor.stop()

    # --- forwarding to the owner -----------------------------------------------------------

    async def owner_of(self, table_id: str) -> str:
        owner = await self.leases.owner(table_id)
        if owner is None or owner == self.id:
            raise BusError(ErrorCode.UNAVAILABLE, "the table is changing hands; retry", table_id=table_id)
        return owner

    async def forward(self, req: TableRequest) -> TableResult:
        if req.table_id not in self.known and req.table_id not in (await self.load_known()):
            raise BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=req.table_id)
        owner = await self.owner_of(req.table_id)
        return await call(self.broker, subjects.table_replica(owner, "cmd"), req, TableResult, timeout=self.ttl)

    async def close(self, req: CloseTable) -> TableSummary:
        owner = await self.owner_of(req.table_id)
        return await call(self.broker, subjects.table_replica(owner, "close"), req, TableSummary)

    async def create(self, req: CreateTable) -> TableSummary:
        """New tables go to the least-loaded live replica (this one on a tie)."""
        live = await self.live()
        target = min(live, key=lambda replica: (live[replica], replica != self.id))
        if target == self.id:
            return await self.create_here(req)
        return await call(self.broker, subjects.table_replica(target, "create"), req, TableSummary, timeout=self.ttl)

    async def create_here(self, req: CreateTable) -> TableSummary:
        async with self._lock:
            summary = await self.rooms.create(req, acquire=self.leases.acquire)
            await self._announce()
            return summary

    async def lobby(self, req: ListTables) -> TableList:
        """Every replica's tables: this one's and the others' (asked together)."""
        others = [replica for replica in await self.live() if replica != self.id]
        answers = await asyncio.gather(
            *(
                call(self.broker, subjects.table_replica(replica, "list"), req, TableList, timeout=2)
                for replica in others
            ),
            return_exceptions=True,
        )
        tables = self.rooms.summaries(req)
        for answer in answers:
            if isinstance(answer, TableList):
                tables.extend(answer.tables)
        return TableList(tables=sorted(tables, key=lambda summary: summary.config.table_id))

    async def forward_event(self, what: str, table_id: str, body: bytes) -> None:
        """A timer event for a table another replica owns: to that replica."""
        owner = await self.leases.owner(table_id)
        if owner is not None and owner != self.id:
            await self.broker.connection.publish(subjects.table_replica(owner, what), body)
