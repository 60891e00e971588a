"""kill -9 of the table service mid-hand at a buy-in table: no chip moved during the hand (the
reserve is the hold), so every reserve is as it was before the hand, which is the refund; on
restart the seats are cleared and cashed out exactly once (SQLite and PostgreSQL)."""

from __future__ import annotations

from felt_contracts.table import Act, GetEvents, GetView, Join, Ready, Start

from felt_runtime.db import create_engine
from tests.table.conftest import balance, cmd, create_table, player, start_stack
from tests.wallet.conftest import check_invariants


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
    for p in pids:  # 13 chips committed in the hand, none moved: the reserves are as before it
        b = await balance(bus, p)
        assert (b.available, b.reserved, b.in_play) == (100, 100, 0), b
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
        0,
        0,
        0,
    ]  # created, killed mid-hand (no hand open at the wallet: nothing moved), two clean restarts
    engine = create_engine(database_url)
    try:
        await check_invariants(engine)  # the ledger sums to zero, nothing negative, no escrow left
    finally:
        await engine.dispose()
