"""kill -9 of the table service mid-hand: on restart every interrupted hand is refunded exactly
once and the seats are cleared (SQLite and PostgreSQL)."""

from __future__ import annotations

from felt_contracts.table import Act, GetEvents, GetView, Join, Ready, Start

from tests.table.conftest import balance, cmd, create_table, player, start_stack


async def test_kill9_mid_hand_refunds_every_interrupted_hand_once(services, bus, database_url):
    procs = start_stack(services, database_url)
    t = await create_table(bus)
    pids = []
    for _ in range(3):
        pid, owner = await player(bus)
        await cmd(bus, t, Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=100))
        await cmd(bus, t, Ready(participant_id=pid))
        pids.append(pid)
    await cmd(bus, t, Start(participant_id=pids[0]))
    v = (await cmd(bus, t, GetView())).view
    actor = next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)
    await cmd(bus, t, Act(participant_id=actor, action="raiseTo", amount=10))
    assert sum([(await balance(bus, p)).in_play for p in pids]) == 13
    procs["table"].kill9()
    procs["table"].start()
    procs["table"].wait_ready()
    for _ in range(2):  # and a second restart refunds nothing more
        for p in pids:
            b = await balance(bus, p)
            assert (b.available, b.reserved, b.in_play) == (200, 0, 0), b
        v = (await cmd(bus, t, GetView())).view
        assert v.seats == () and v.hand is None
        reset = [e for e in (await cmd(bus, t, GetEvents(after_seq=0))).events if e.kind == "table_reset"]
        assert reset[-1].seq > 0
        procs["table"].restart()
    assert [e.amount for e in (await cmd(bus, t, GetEvents(after_seq=0))).events if e.kind == "table_reset"] == [
        0,
        1,
        0,
        0,
    ]  # created, killed mid-hand, two clean restarts
