"""Connection presence per (table, participant) in this gateway process.

The table's disconnect grace is driven by it: when a participant's last socket watching a
table closes, the table is told `disconnect` (its grace deadline starts); when a socket opens
again, `reconnect`. Agents over REST have no presence (they are never "disconnected").
"""

from __future__ import annotations

import logging
from collections import Counter

from felt_contracts.table import Disconnect, Reconnect
from felt_gateway.clients import Bus
from felt_runtime.bus import BusError

log = logging.getLogger("felt.gateway.presence")


class Presence:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.count: Counter[tuple[str, str]] = Counter()

    def watching(self, table_id: str, participant_id: str) -> bool:
        return self.count[(table_id, participant_id)] > 0

    async def opened(self, table_id: str, participant_id: str) -> None:
        self.count[(table_id, participant_id)] += 1
        if self.count[(table_id, participant_id)] == 1:
            await self._tell(table_id, Reconnect(participant_id=participant_id))

    async def closed(self, table_id: str, participant_id: str) -> None:
        key = (table_id, participant_id)
        if self.count[key] <= 0:
            return
        self.count[key] -= 1
        if self.count[key] == 0:
            del self.count[key]
            await self._tell(table_id, Disconnect(participant_id=participant_id))

    async def _tell(self, table_id: str, command: Disconnect | Reconnect) -> None:
        try:
            await self.bus.table(table_id, command, timeout=3)
        except BusError as exc:  # not seated there, or the table is away: nothing to drive
            log.debug("presence not applied", extra={"table_id": table_id, "code": exc.code.value})
