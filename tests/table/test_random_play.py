"""Acceptance: 200 complete hands on a 3-player nlhe-1 and a 4-player ante-nl-1 table driven by
scripted clients over the bus (random legal actions, timeouts, leaves, rejoins); then the wallet
ledger balances exactly and every hand is settled."""

from __future__ import annotations

import asyncio

from felt_contracts.table import GetView, ListHands

from tests.table.conftest import balance, cmd, create_table
from tests.table.driver import play_table

import os

HANDS = int(os.environ.get("TABLE_HANDS", "200"))


async def wait_idle(bus, table_id):
    for _ in range(200):
        v = (await cmd(bus, table_id, GetView())).view
        if (v.hand is None or v.hand.phase == "over") and not v.seats:
            return
        await asyncio.sleep(0.05)


async def test_200_hands_nlhe_and_ante_tables_balance_the_ledger(stack, bus):
    nl = await create_table(bus, turn_seconds=0.2)
    an = await create_table(bus, rules_version="ante-nl-1", turn_seconds=0.2, intermission_seconds=0.02)
    accounts: list[str] = []
    s1, s2 = await asyncio.gather(
        play_table(bus, nl, 3, HANDS, ante=False, seed=1, accounts=accounts),
        play_table(bus, an, 4, HANDS, ante=True, seed=2, accounts=accounts),
    )
    assert s1["hands"] >= HANDS and s2["hands"] >= HANDS
    assert s1["timeouts"] and s1["leaves"] and s2["leaves"]
    await wait_idle(bus, nl)
    await wait_idle(bus, an)
    total = 0
    for pid in accounts:
        b = await balance(bus, pid)
        assert b.in_play == 0 and b.reserved == 0, (pid, b)
        total += b.available
    assert total == 200 * len(accounts)  # sum of balances == grants, no escrow left
    for t in (nl, an):
        hands = (await cmd(bus, t, ListHands(limit=500))).hands
        assert len(hands) >= HANDS
        assert all(h.status == "settled" for h in hands)
