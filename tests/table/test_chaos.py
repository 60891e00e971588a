"""100 seeded hands at a 3-player table while the wallet, the table or limits is killed (-9)
just before random actions and started again: after every hand the ledger sums to zero, no
escrow of an ended hand holds a chip, the table leaves no hand open at the wallet, and every
stack equals its reserve (SQLite and PostgreSQL)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import sqlalchemy as sa

from felt_contracts.errors import ErrorCode
from felt_contracts.table import Join, Ready, Start
from felt_runtime.bus import BusError
from felt_wallet.store import hands as wallet_hands
from tests.table.conftest import balance, cmd, create_table, player
from tests.table.driver import pick
from tests.support.waiting import eventually
from tests.table.money import assert_stacks_are_reserves, in_thread, view
from tests.wallet.conftest import check_invariants

SEED = 20261201
HANDS = 100
VICTIMS = ["wallet", "table", "limits"] * 3  # nine kills, at random hands and random actions of them
TOLERATED = {
    ErrorCode.UNAVAILABLE,
    ErrorCode.NOT_FOUND,
    ErrorCode.STALE_TURN,
    ErrorCode.NOT_YOUR_TURN,
    ErrorCode.HAND_CLOSED,
    ErrorCode.NOT_SEATED,
    ErrorCode.CONFLICT,
}


async def open_hands(engine: Any, t: str) -> int:
    async with engine.connect() as conn:
        return (
            await conn.execute(
                sa.select(sa.func.count())
                .select_from(wallet_hands)
                .where(wallet_hands.c.table_id == t, wallet_hands.c.status == "open")
            )
        ).scalar_one()


async def quiet(bus: Any, t: str) -> bool:
    try:
        v = await view(bus, t)
    except BusError:
        return False
    return v.paused is None and (v.hand is None or v.hand.phase == "over")


async def seat_everyone(bus: Any, t: str, players: list[str]) -> None:
    seated = {s.participant_id for s in (await view(bus, t)).seats}
    for i, pid in enumerate(players):
        if pid not in seated:
            if (await balance(bus, pid)).available < 20:
                players[i] = pid = (await player(bus))[0]
            amount = min(100, (await balance(bus, pid)).available)
            await cmd(bus, t, Join(participant_id=pid, owner_id=f"o-{pid}", kind="agent", buy_in=amount))
        await cmd(bus, t, Ready(participant_id=pid))


async def test_100_seeded_hands_with_wallet_table_and_limits_killed_keep_every_chip(money_stack, bus, ledger_db):
    rng = random.Random(SEED)
    t = await create_table(bus, seats=3)
    players = [(await player(bus))[0] for _ in range(3)]
    victims = VICTIMS[:]
    rng.shuffle(victims)
    # (hand number, victim), soonest first; a kill whose hand ended before its action is made in the next hand
    plan = list(zip(sorted(rng.sample(range(HANDS), len(victims))), victims))
    kills: Counter[str] = Counter()
    started = 0
    while started < HANDS or plan:
        try:
            await seat_everyone(bus, t, players)
            await cmd(bus, t, Start(participant_id=players[0]))
        except BusError as exc:
            assert exc.code in TOLERATED or exc.code is ErrorCode.LIMIT_EXCEEDED, exc
            await eventually(lambda: quiet(bus, t))
            continue
        started += 1
        kill_at = rng.randint(0, 1)  # before the hand's first or second action
        actions = 0
        v = await view(bus, t)
        while True:  # play the hand out with random legal actions (each reply's view names the next actor)
            if v.hand is None or v.hand.phase == "over" or v.hand.actor_seat_id is None:
                break
            pid = next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)
            mine = await view(bus, t, pid)
            act = pick(rng, mine, ante=False)
            if act is None:
                break
            victim = plan.pop(0)[1] if actions == kill_at and plan and plan[0][0] < started else None
            actions += 1
            if victim:
                money_stack[victim].kill9()
                kills[victim] += 1
            try:
                v = (
                    await cmd(
                        bus, t, act.model_copy(update={"hand_id": mine.hand.hand_id, "turn_id": mine.hand.turn_id})
                    )
                ).view
            except BusError as exc:
                assert exc.code in TOLERATED, exc
                v = None
            if victim:
                money_stack[victim].start()
                await in_thread(money_stack[victim].wait_ready)
            if victim == "table":
                break  # its restart policy ended the hand
            v = v or await view(bus, t)
        await eventually(lambda: quiet(bus, t))
        await check_invariants(ledger_db)
        assert await open_hands(ledger_db, t) == 0
        await assert_stacks_are_reserves(bus, t)
    print(f"\n{started} hands, kills {dict(kills)}")
    assert kills == Counter(VICTIMS), kills
