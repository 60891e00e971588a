"""One active table session per participant (the Clawbet rules), across every table-service replica:
a claim per participant in the JetStream KV bucket `felt-table-sessions` (key: the
participant, value: the table). `kv.create` is atomic, so of two replicas seating the same
participant at once exactly one wins; a release deletes the claim only at the revision this
table holds it, so it never removes another table's claim."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import BadRequestError, KeyNotFoundError, KeyWrongLastSequenceError

from felt_contracts import subjects

BUCKET = subjects.TABLE_SESSIONS_BUCKET  # named with the bus subjects: its permissions are generated
_SAFE = re.compile(r"^[-_=.a-zA-Z0-9]{1,200}$")
WRONG_LAST_SEQUENCE = 10071  # JetStream's err_code for an expected last sequence that moved on
Claims = list[tuple[str, int]]  # (key, revision) of each claim a table holds


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

    async def claims(self) -> dict[str, Claims]:
        """Every claim, by table: one pass over the bucket with its values. A read per key (the
        keys, then a get each) would make every table opened in a busy room wait for the whole
        room, for longer than an operator's create waits."""
        watcher = await self.kv.watchall(ignore_deletes=True)
        by_table: dict[str, Claims] = defaultdict(list)
        try:
            async for entry in watcher:
                if entry is None:  # the end of what the bucket holds now
                    break
                if entry.value:
                    by_table[entry.value.decode()].append((entry.key, entry.revision))
        finally:
            await watcher.stop()
        return by_table

    async def release_table(self, table_id: str, held: Claims | None = None) -> int:
        """The restart policy clears a table's seats: release every claim it held, each at the
        revision read. `held`: the table's claims when the caller read them for many tables at
        once (a restart opening every table); None reads them now."""
        if held is None:
            held = (await self.claims()).get(table_id, [])
        return sum([await self._delete_at(key, revision) for key, revision in held])

    async def _release_key(self, key: str, table_id: str) -> bool:
        """Delete the claim if `table_id` holds it, at the revision read (a claim made anew in
        between is not ours to delete); whether it was deleted."""
        try:
            entry = await self.kv.get(key)
        except KeyNotFoundError:
            return False
        if not entry.value or entry.value.decode() != table_id:
            return False
        return await self._delete_at(key, entry.revision)

    async def _delete_at(self, key: str, revision: int | None) -> bool:
        """Delete the claim if it is still at `revision`; whether it was. nats-py's delete reports a
        newer revision as a plain `BadRequestError` (not `KeyWrongLastSequenceError`, as update does)."""
        try:
            await self.kv.delete(key, last=revision)
        except BadRequestError as exc:
            if exc.err_code == WRONG_LAST_SEQUENCE:
                return False
            raise
        return True
