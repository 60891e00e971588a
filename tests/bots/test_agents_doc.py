"""The complete agent in docs/agents.md runs against the real room (with a bot to play
against) and finishes its hands: the example cannot rot."""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys

from felt_bots.levels import LEVELS
from felt_bots.player import Bot
from tests.bots.conftest import create_table, new_agent
from tests.support.services import REPO


def example() -> str:
    text = (REPO / "docs" / "agents.md").read_text()
    return re.search(r"<!-- example: agent -->\n```python\n(.*?)```", text, re.S).group(1)


async def test_the_documented_agent_plays_its_hands(room, bus, tmp_path) -> None:
    code = example()
    assert 25 <= len(code.strip().splitlines()) <= 45, "about thirty lines"
    script = tmp_path / "agent.py"
    script.write_text(code)
    table_id = await create_table(bus)
    _, agent = await new_agent(room, "documented")
    _, rival = await new_agent(room, "rival")
    opponent = Bot(rival, "rival", "rival", "easy", table_id, LEVELS["easy"], random.Random(4), pause_seconds=0.2)
    task = asyncio.create_task(opponent.run())
    env = {**os.environ, "FELT_URL": room.url, "FELT_API_KEY": agent.credential, "FELT_TABLE": table_id, "HANDS": "5"}
    try:
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stderr[-3000:]
        hands = await rival.hands(table_id)
        assert len(hands) >= 4
        # a leave during a hand cashes out when that hand settles: the rival plays it out
        for _ in range(100):
            if (await agent.balance()).reserved == 0:
                break
            await asyncio.sleep(0.2)
        assert (await agent.balance()).reserved == 0, "it left the table"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    await agent.aclose()
    await rival.aclose()
