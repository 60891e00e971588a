"""Numbered table events: the per-table sequence, the outbox of one command, persisting and
publishing it, and per-viewer redaction.

Every state change gets the next `seq` of its table (continued from the database after a
restart) so a client can detect gaps and fill them with `GetEvents`. A command's events are
written in one transaction and only then published: what a client sees can always be re-read.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from felt_contracts import subjects
from felt_contracts.table import TableEvent
from felt_table.deps import Deps
from felt_table.store import Write

FIELDS = set(TableEvent.model_fields)
_JSON = {"content-type": "application/json"}


def _body(ev: TableEvent | None) -> bytes:
    assert ev is not None
    return ev.model_dump_json().encode()


class Events:
    def __init__(self, table_id: str, deps: Deps) -> None:
        self.tid = table_id
        self.deps = deps
        self.seq = deps.last_seq
        self.outbox: list[dict[str, Any]] = []
        self.finished_hand: dict[str, Any] | None = None  # the hand record, stored with the events
        self.hand_end: dict[str, Any] | None = None  # the end asked of the wallet, stored before it is sent
        self.acked_ends: list[str] = []  # hand ends the wallet answered

    def emit(self, kind: str, *, private_to: str | None = None, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        ev = {"table_id": self.tid, "seq": self.seq, "kind": kind, "at": datetime.now(UTC).isoformat(),
              "private_to": private_to, **fields}
        self.outbox.append(ev)
        return ev

    async def flush(self) -> None:
        """Persist the pending events (and finished hand, hand end, acknowledgements) in one
        transaction, then publish them."""
        w = Write(self.outbox, self.finished_hand, self.hand_end, self.acked_ends)
        self.outbox, self.finished_hand, self.hand_end, self.acked_ends = [], None, None, []
        if w.empty():
            return
        await self.deps.store.write(w)
        events = w.events
        # plain nats-py publishes only buffer: the command's copies leave in one socket write
        nc = self.deps.broker.connection
        for ev in events:
            if ev.get("private_to") is None:
                await nc.publish(subjects.table_public_events(self.tid), _body(render(ev, None)),
                                 headers={**_JSON, "Nats-Msg-Id": f"{self.tid}:{ev['seq']}"})
            for pid in private_recipients(ev):
                await nc.publish(subjects.table_seat_events(self.tid, pid), _body(render(ev, pid)),
                                 headers={**_JSON, "Nats-Msg-Id": f"{self.tid}:{ev['seq']}:{pid}"})

    async def since(self, after_seq: int, viewer: str | None, limit: int) -> tuple[TableEvent, ...]:
        """Stored events after `after_seq` as `viewer` may see them (gap filling)."""
        await self.flush()
        rows = await self.deps.store.events(self.tid, after_seq, limit)
        return tuple(r for r in (render(ev, viewer) for ev in rows) if r is not None)


def private_recipients(ev: dict[str, Any]) -> list[str]:
    if ev.get("private_to"):
        return [ev["private_to"]]
    if (ev.get("private_card") or ev["kind"] == "turn") and ev.get("participant_id"):
        return [ev["participant_id"]]
    return []


def render(ev: dict[str, Any], viewer: str | None) -> TableEvent | None:
    """The event as `viewer` may see it (None: public). Private-only events of others: None."""
    if ev.get("private_to") and ev["private_to"] != viewer:
        return None
    own = viewer is not None and ev.get("participant_id") == viewer
    d = {k: v for k, v in ev.items() if k in FIELDS}
    d["event_id"] = f"{ev['table_id']}:{ev['seq']}" + (f":{viewer}" if own else "")
    d["private"] = bool(ev.get("private_to")) or (own and (bool(ev.get("private_card")) or ev["kind"] == "turn"))
    if ev.get("private_card") and not own:
        d["amount"] = len(ev.get("cards") or []) if ev["kind"] == "deal_hole" else ev.get("amount", 0)
        d["cards"], d["discarded"] = (), ()
    for k in ("cards", "discarded"):
        if k in d and d[k] is not None:
            d[k] = tuple(d[k])
    return TableEvent(**{k: v for k, v in d.items() if v is not None or k in ("seat",)})
