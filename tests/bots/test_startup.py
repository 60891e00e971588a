"""The bots service started while the room cannot serve it yet (the wallet away, so every new
bot's sign-up is answered 503): it keeps trying and seats its configured bots once the wallet
is back, no more than configured."""

from __future__ import annotations

import asyncio
import time

from felt_client import FeltClient
from tests.bots.conftest import Room, create_table


async def test_the_bots_are_seated_once_the_room_answers_after_a_slow_start(room: Room, bus) -> None:
    table_id = await create_table(bus)
    wallet = room.procs["wallet"]
    wallet.stop()
    bots = room.runner.start(
        "bots", FELT_BOTS="2", FELT_BOTS_TABLES=table_id, FELT_BOTS_GATEWAY_URL=room.url, FELT_BOTS_THINK_SECONDS="0"
    )
    try:
        await asyncio.sleep(8)  # the first tries are refused (503: no wallet)
        wallet.start()
        wallet.wait_ready(timeout=90)
        seated: list[dict] = []
        async with FeltClient(room.url) as lobby:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                seated = [t for t in await lobby.tables() if t["tableId"] == table_id]
                if seated and seated[0]["players"] == 2:
                    break
                await asyncio.sleep(1)
            await asyncio.sleep(3)  # a retry that seated more would show now
            seated = [t for t in await lobby.tables() if t["tableId"] == table_id]
        assert seated and seated[0]["players"] == 2, seated
    finally:
        bots.stop()
        if wallet.process is None or wallet.process.poll() is not None:
            wallet.start()
            wallet.wait_ready(timeout=90)
