"""A hosted table's definition survives a takeover by another table-service replica (docs/rules.md
"Hosting a table"): kill -9 the replica that owns a private table whose host paused it, changed its
blinds, removed a player and has a request to sit waiting; the other replica takes it over with
all of that, the same invite code opens it, and the interrupted hand is refunded once."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import nats

from felt_contracts import subjects
from felt_contracts.table import GetView, ListTables, TableList
from felt_runtime.bus import call, make_broker
from tests.scale.test_table_replicas import owners, retry, start_replicas
from tests.support.servers import nats_server
from tests.support.services import ServiceRunner
from tests.table.conftest import balance, cmd, player
from tests.table.test_hosted import CODE, deal, host_does, hosted, invite_hash, join


async def test_a_private_hosted_table_keeps_its_definition_when_another_replica_takes_it_over(
    redis_url: str, tmp_path: Path
) -> None:
    with nats_server(tmp_path / "nats") as url:
        runner = ServiceRunner(url, redis_url, tmp_path)
        db = f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}"
        nc = await nats.connect(url)
        bus = make_broker(url, "hosted-replica-test")
        try:
            replicas = start_replicas(runner, db)
            await bus.connect()
            js = nc.jetstream()

            host, owner = await player(bus)
            guest, guest_owner = await player(bus)
            asker, asker_owner = await player(bus)
            gone, gone_owner = await player(bus)
            t = await hosted(bus, host, owner, approval=True)
            await join(bus, t, host, owner, code=None)
            for pid, own in ((guest, guest_owner), (gone, gone_owner)):
                assert await join(bus, t, pid, own) == "pending"
                await host_does(bus, t, host, "approve", participant=pid)
            await host_does(bus, t, host, "remove", participant=gone)
            assert await join(bus, t, asker, asker_owner) == "pending"
            await deal(bus, t, [host, guest])
            assert await host_does(bus, t, host, "pause") == "next_hand"
            assert await host_does(bus, t, host, "blinds", small_blind=5, big_blind=10) == "next_hand"

            victim = (await owners(js))[t]
            survivor = next(rid for rid in replicas if rid != victim)
            killed = time.monotonic()
            replicas[victim].kill9()
            while (await owners(js)).get(t) != survivor:
                assert time.monotonic() - killed < 30, await owners(js)
                await asyncio.sleep(0.2)

            v = (await retry(lambda: cmd(bus, t, GetView(viewer=host)))).view
            assert v.config.host_id == host and v.config.approval
            assert (v.config.small_blind, v.config.big_blind) == (5, 10)
            assert v.paused == "paused by the host" and v.host is not None and v.host.paused
            assert [r.participant_id for r in v.host.pending_requests] == [asker]
            assert v.host.removed == (gone, gone_owner)
            assert v.seats == () and v.hand is None  # the restart policy: seats cleared
            found = await call(bus, subjects.TABLE_LIST, ListTables(invite_hash=invite_hash(CODE)), TableList)
            assert [s.config.table_id for s in found.tables] == [t]
            for p in (host, guest, gone):
                b = await balance(bus, p)
                assert (b.reserved, b.in_play) == (0, 0), b
            assert (await balance(bus, host)).available + (await balance(bus, guest)).available == 400
        finally:
            await bus.stop()
            await nc.close()
            runner.stop_all()
