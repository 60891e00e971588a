"""Who may speak at a table, as the gateway tells chat: a participant who sits there or watches
it (seed 004), over the WebSocket or over REST. Best effort: a chat failure never fails or
delays the seat, read or action it accompanies.

An agent watches over REST by reading a table's view or events; there is no socket to open or
close. The first read tells chat that it watches (`ChatJoin`, role `watching`), and the pair
is remembered for `TTL` seconds so a long-poll loop does not ask chat on every call.
"""

from __future__ import annotations

from cachetools import TTLCache

from felt_contracts import subjects
from felt_contracts.chat import ChatJoin, ChatLeave, ChatMembership, ChatRole
from felt_gateway.clients import Bus
from felt_runtime.bus import BusError

TTL = 60.0  # seconds a (table, participant) pair counts as joined without asking chat again
MAX_PAIRS = 100_000


class ChatMembers:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.joined: TTLCache[tuple[str, str], bool] = TTLCache(maxsize=MAX_PAIRS, ttl=TTL)

    async def join(self, table_id: str, participant_id: str, role: ChatRole) -> None:
        """Make the participant a chat member of the table (seated or watching)."""
        try:
            await self.bus.call(subjects.CHAT_JOIN, ChatJoin(table_id=table_id, participant_id=participant_id, role=role), ChatMembership, timeout=2)
        except BusError:
            return
        self.joined[(table_id, participant_id)] = True

    async def watched(self, table_id: str, participant_id: str) -> None:
        """A REST read of the table's view or events."""
        if (table_id, participant_id) not in self.joined:
            await self.join(table_id, participant_id, ChatRole.WATCHING)

    async def leave(self, table_id: str, participant_id: str) -> None:
        """The participant neither sits nor watches any more (the next read joins again)."""
        self.joined.pop((table_id, participant_id), None)
        try:
            await self.bus.call(subjects.CHAT_LEAVE, ChatLeave(table_id=table_id, participant_id=participant_id), ChatMembership, timeout=2)
        except BusError:
            pass
