"""Only seat changes are stored in JetStream (the stream chat follows for membership); every
other event of a hand goes out on core NATS and is kept by the table's own store."""

from __future__ import annotations

import nats
from nats.errors import TimeoutError as NatsTimeout

from felt_contracts import subjects
from felt_contracts.table import SEAT_CHANGES, Act, GetEvents, Start, TableEvent
from tests.table.conftest import cmd, uid
from tests.table.money import actor_of, seat_players, view
from tests.table.test_once_per_message import create_table, send


async def stored_seat_changes(nats_url: str, table_id: str) -> list[TableEvent]:
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        sub = await js.pull_subscribe(subjects.table_seat_changes(table_id), stream=subjects.TABLE_SEATS_STREAM)
        out: list[TableEvent] = []
        while True:
            try:
                msgs = await sub.fetch(50, timeout=1.0)
            except NatsTimeout:
                return out
            out += [TableEvent.model_validate_json(m.data) for m in msgs]
    finally:
        await nc.close()


async def test_only_seat_changes_are_stored_in_jetstream(stack, bus, nats_url) -> None:
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await send(bus, t, Start(participant_id=pids[0]), uid("m"))
    await send(bus, t, Act(participant_id=actor_of(await view(bus, t)), action="fold"), uid("a"))
    every = (await cmd(bus, t, GetEvents(after_seq=0))).events
    changes = [e for e in every if e.kind in SEAT_CHANGES]
    assert len(every) > len(changes) >= 2  # a hand was played: far more events than seat changes
    stored = await stored_seat_changes(nats_url, t)
    assert [(e.seq, e.kind, e.participant_id) for e in stored] == [(e.seq, e.kind, e.participant_id) for e in changes]
