"""One active table session per participant (seed 004), across every table-service replica:
a claim per participant in the JetStream KV bucket `felt-table-sessions` (key: the
participant, value: the table). `kv.create` is atomic, so of two replicas seating the same
participant at once exactly one wins; a release deletes the claim only at the revision this
table holds it, so it never removes another table's claim."""

from __future__ import annotations

import re
from typing import Any

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError

BUCKET = "felt-table-sessions"
_SAFE = re.compile(r"^[-_=.a-zA-Z0-9]{1,200}$")


def _key(participant_id: str) -> str:
    return participant_id if _SAFE.match(participant_id) else "x" + participant_id.encode().hex()


class SessionRegistry:
    def __init__(self) -> None:
        self.kv: Any = None

    async def open(self, js: Any, replicas: int = 1) -> None:
        """Declare the bucket (3 replicas on a 3-node cluster: FELT_TABLE_KV_REPLICAS)."""
        self.kv = await js.create_key_value(
            KeyValueConfig(bucket=BUCKET, history=1, storage=StorageType.FILE, replicas=replicas)
        )

    async def claim(self, participant_id: str, table_id: str) -> str | None:
        """Claim the participant for `table_id`; the other table that holds them, or None."""
        key = _key(participant_id)
        while True:
            try:
                await self.kv.create(key, table_id.encode())
                return None
            except KeyWrongLastSequenceError:
                pass
            try:
                held = (await self.kv.get(key)).value.decode()
            except KeyNotFoundError:
                continue  # released in between: try again
            return None if held == table_id else held

    async def holder(self, participant_id: str) -> str | None:
        try:
            entry = await self.kv.get(_key(participant_id))
        except KeyNotFoundError:
            return None
        return entry.value.decode() if entry.value else None

    async def release(self, participant_id: str, table_id: str) -> None:
        await self._release_key(_key(participant_id), table_id)

    async def release_table(self, table_id: str) -> int:
        """The restart policy clears a table's seats: release every claim it held."""
        try:
            keys = await self.kv.keys()
        except NoKeysError:
            return 0
        return sum([await self._release_key(key, table_id) for key in keys])

    async def _release_key(self, key: str, table_id: str) -> bool:
        """Delete the claim if `table_id` holds it, at the revision read (a claim made anew in
        between is not ours to delete); whether it was deleted."""
        try:
            entry = await self.kv.get(key)
        except KeyNotFoundError:
            return False
        if not entry.value or entry.value.decode() != table_id:
            return False
        try:
            await self.kv.delete(key, last=entry.revision)
        except KeyWrongLastSequenceError:
            return False
        return True
