"""One active session per participant across table replicas: two registries on two NATS
connections (two replicas) racing for the same participants on a real JetStream KV."""

from __future__ import annotations

import asyncio
import uuid

import nats

from felt_table.ports.registry import SessionRegistry


async def _replica(nats_url: str) -> tuple[object, SessionRegistry]:
    nc = await nats.connect(nats_url)
    reg = SessionRegistry()
    await reg.open(nc.jetstream())
    return nc, reg


async def test_two_replicas_racing_seat_each_participant_once(nats_url: str) -> None:
    (nc1, r1), (nc2, r2) = await _replica(nats_url), await _replica(nats_url)
    try:
        t1, t2 = f"a{uuid.uuid4().hex[:8]}", f"b{uuid.uuid4().hex[:8]}"
        people = [f"p{uuid.uuid4().hex}" for _ in range(40)] + ["owner:ünïcode id"]
        outcomes = await asyncio.gather(*(r.claim(p, t) for p in people for r, t in ((r1, t1), (r2, t2))))
        for i, p in enumerate(people):
            first, second = outcomes[2 * i], outcomes[2 * i + 1]
            assert (first is None) != (second is None), (p, first, second)  # exactly one table won
            winner = t1 if first is None else t2
            assert (first or second) == winner and await r1.holder(p) == winner
            assert await r2.claim(p, winner) is None  # the holder claiming again is fine
        # a table that does not hold a participant cannot release them
        p = people[0]
        holder = await r1.holder(p)
        loser = t2 if holder == t1 else t1
        await r2.release(p, loser)
        assert await r1.holder(p) == holder
        await r2.release(p, holder)
        assert await r1.holder(p) is None and await r2.claim(p, loser) is None
        # a restarted table (seats cleared) releases all it held, nobody else's
        held_by_t1 = [q for q in people if await r1.holder(q) == t1]
        assert await r2.release_table(t1) == len(held_by_t1)
        holders = [await r1.holder(q) for q in people]
        assert t1 not in holders and t2 in holders
    finally:
        await nc1.close()
        await nc2.close()


async def test_claims_read_earlier_release_only_what_the_table_still_holds(nats_url: str) -> None:
    """A restart reads every table's claims in one pass, then releases each table's at the
    revision read: a participant who moved to another table since keeps that seat."""
    nc, reg = await _replica(nats_url)
    try:
        t1, t2 = f"a{uuid.uuid4().hex[:8]}", f"b{uuid.uuid4().hex[:8]}"
        stays, moves = f"p{uuid.uuid4().hex}", f"p{uuid.uuid4().hex}"
        assert await reg.claim(stays, t1) is None and await reg.claim(moves, t1) is None
        held = (await reg.claims())[t1]
        assert sorted(key for key, _ in held) == sorted([stays, moves])
        await reg.release(moves, t1)
        assert await reg.claim(moves, t2) is None
        assert await reg.release_table(t1, held) == 1
        assert await reg.holder(stays) is None and await reg.holder(moves) == t2
    finally:
        await nc.close()
