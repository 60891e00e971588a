"""Numbered table events: the per-table sequence, the outbox of one command, persisting and
publishing it, and per-viewer redaction.

Which participant gets a private copy of an event is decided here, once (`private_copy_for`):
the owner of the cards the engine calls private (`PRIVATE_KINDS`: own hole cards, own draw),
the actor of a `turn` (their legal actions), or the one participant of a private-only event.
Both copies of such a seq carry that participant in the `PRIVATE_COPY` header, so the gateway
routes them without knowing event kinds.

Every state change gets the next `seq` of its table (continued from the database after a
restart) so a client can detect gaps and fill them with `GetEvents`. A command's events are
written in one transaction and only then published: what a client sees can always be re-read.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from felt_contracts import subjects
from felt_contracts.names import EventKind
from felt_contracts.table import PRIVATE_COPY, SEAT_CHANGES, TableEvent
from felt_engine.operations import PRIVATE_KINDS
from felt_engine.views import seen_by
from felt_runtime.metrics import HAND_EVENTS, HANDS
from felt_table.ports.deps import Deps
from felt_table.ports.store import Write

FIELDS = set(TableEvent.model_fields)
#: kinds whose participant gets a private copy: the engine's private cards, and the table's turn
OWN_COPY_KINDS = PRIVATE_KINDS | {"turn"}
_JSON = {"content-type": "application/json"}
log = logging.getLogger("felt.table.events")


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

    def emit(self, kind: EventKind, *, private_to: str | None = None, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        ev = {
            "table_id": self.tid,
            "seq": self.seq,
            "kind": kind,
            "at": datetime.now(UTC).isoformat(),
            "private_to": private_to,
            **fields,
        }
        self.outbox.append(ev)
        return ev

    async def flush(self) -> None:
        """Persist the pending events (and finished hand, hand end, acknowledgements) in one
        transaction, then publish them."""
        write = Write(self.outbox, self.finished_hand, self.hand_end, self.acked_ends)
        self.outbox, self.finished_hand, self.hand_end, self.acked_ends = [], None, None, []
        if write.empty():
            return
        await self.deps.store.write(write)
        events = write.events
        for ev in events:
            if (counted := HAND_EVENTS.get(ev["kind"])) is not None:
                HANDS.labels(counted).inc()
        # plain nats-py publishes only buffer: the command's copies leave in one socket write
        nc = self.deps.broker.connection
        for ev in events:
            to = private_copy_for(ev)
            marked = {**_JSON, PRIVATE_COPY: to} if to is not None else _JSON
            if ev.get("private_to") is None:
                public = _body(render(ev, None))
                headers = {**marked, "Nats-Msg-Id": f"{self.tid}:{ev['seq']}"}
                await nc.publish(subjects.table_public_events(self.tid), public, headers=headers)
                if ev["kind"] in SEAT_CHANGES:
                    await self._stored(subjects.table_seat_changes(self.tid), public, headers)
                if to is not None:
                    await nc.publish(
                        subjects.table_seat_events(self.tid, to),
                        _body(render(ev, to)),
                        headers={**marked, "Nats-Msg-Id": f"{self.tid}:{ev['seq']}:{to}"},
                    )
            else:  # private-only: no public copy, so no mark
                await nc.publish(
                    subjects.table_seat_events(self.tid, ev["private_to"]),
                    _body(render(ev, ev["private_to"])),
                    headers={**_JSON, "Nats-Msg-Id": f"{self.tid}:{ev['seq']}:{ev['private_to']}"},
                )

    async def _stored(self, subject: str, body: bytes, headers: dict[str, str]) -> None:
        """A seat change is also published to the seat-changes stream, and is in it before the
        command that made it is answered: chat judges a post that follows a join's answer by the
        seats it applied from the stream (a core publish could reach the stream after the answer
        reached the player). If JetStream does not answer in time, it goes out as a core publish."""
        js = self.deps.broker.config.connection_state.stream
        try:
            await js.publish(subject, body, timeout=2.0, headers=headers)
        except Exception:  # stored in the table's own store already: delivery goes on
            log.warning("seat change not acknowledged by the stream", extra={"table_id": self.tid}, exc_info=True)
            await self.deps.broker.connection.publish(subject, body, headers=headers)

    async def since(self, after_seq: int, viewer: str | None, limit: int) -> tuple[TableEvent, ...]:
        """Stored events after `after_seq` as `viewer` may see them (gap filling)."""
        await self.flush()
        rows = await self.deps.store.events(self.tid, after_seq, limit)
        return tuple(event for event in (render(ev, viewer) for ev in rows) if event is not None)


def private_copy_for(ev: dict[str, Any]) -> str | None:
    """The participant who gets a private copy of this event besides its public one (None: the
    public copy is everyone's). Private-only events (`private_to`) are that participant's alone."""
    if ev["kind"] in OWN_COPY_KINDS and ev.get("participant_id"):
        return ev["participant_id"]
    return None


def render(ev: dict[str, Any], viewer: str | None) -> TableEvent | None:
    """The event as `viewer` may see it (None: public). Private-only events of others: None.
    A private copy's id names its viewer; every other copy has the table's id `<table>:<seq>`."""
    if ev.get("private_to") and ev["private_to"] != viewer:
        return None
    private = bool(ev.get("private_to")) or (viewer is not None and private_copy_for(ev) == viewer)
    fields = {key: value for key, value in ev.items() if key in FIELDS}
    fields["event_id"] = f"{ev['table_id']}:{ev['seq']}" + (f":{viewer}" if private else "")
    fields["private"] = private
    fields["cards"], fields["discarded"], fields["amount"] = seen_by(
        ev["kind"], ev.get("cards") or (), ev.get("discarded") or (), ev.get("amount", 0), private
    )
    for key in ("cards", "discarded"):
        if key in fields and fields[key] is not None:
            fields[key] = tuple(fields[key])
    return TableEvent(**{key: value for key, value in fields.items() if value is not None or key in ("seat",)})
