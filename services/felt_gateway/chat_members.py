"""Who watches a table, as the gateway tells chat (the Clawbet rules: a participant who sits at a table
or watches it may speak there). Seats need no call: chat follows the table's own seat events.
Watching is what only the gateway knows: a WebSocket subscribed to the table (until the
participant's last socket there closes), or over REST a read of the table's view or events.
Best effort: a chat failure never fails or delays the read or subscription it accompanies.

An agent watches over REST by reading; there is no socket to open or close. Its first read tells
chat that it watches for `REST_WATCH` seconds, and the pair is remembered for `TTL` seconds so a
long-poll loop asks chat at most once a minute (each ask extends the watch).
"""

from __future__ import annotations

from cachetools import TTLCache

from felt_contracts import subjects
from felt_contracts.chat import ChatJoin, ChatLeave, ChatMembership
from felt_gateway.clients import Bus
from felt_runtime.bus import BusError

TTL = 60.0  # seconds a (table, participant) REST watch counts as told without asking chat again
REST_WATCH = 2 * TTL  # seconds a REST read makes its reader a watcher
MAX_PAIRS = 100_000


class ChatMembers:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.joined: TTLCache[tuple[str, str], bool] = TTLCache(maxsize=MAX_PAIRS, ttl=TTL)

    async def _call(self, subject: str, request: ChatJoin | ChatLeave) -> bool:
        try:
            await self.bus.call(subject, request, ChatMembership, timeout=2)
        except BusError:
            return False
        return True

    async def watched(self, table_id: str, participant_id: str) -> None:
        """A REST read of the table's view or events."""
        if (table_id, participant_id) in self.joined:
            return
        join = ChatJoin(table_id=table_id, participant_id=participant_id, ttl_seconds=REST_WATCH)
        if await self._call(subjects.CHAT_JOIN, join):
            self.joined[(table_id, participant_id)] = True

    async def subscribed(self, table_id: str, participant_id: str) -> None:
        """A socket of the participant subscribed to the table: watching until `unsubscribed`."""
        await self._call(subjects.CHAT_JOIN, ChatJoin(table_id=table_id, participant_id=participant_id))

    async def unsubscribed(self, table_id: str, participant_id: str) -> None:
        """The participant's last socket watching the table, on any gateway, closed."""
        self.joined.pop((table_id, participant_id), None)  # a later REST read watches again
        await self._call(subjects.CHAT_LEAVE, ChatLeave(table_id=table_id, participant_id=participant_id))
