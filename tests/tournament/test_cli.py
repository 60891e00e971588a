"""`felt tournament create|list|cancel` against the running room's tournament service."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

from tests.tournament.conftest import accounts, available, definition, register


def felt(nats_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FELT_NATS_URL": nats_url}
    return subprocess.run(
        [sys.executable, "-m", "felt_runtime.cli", "tournament", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_the_felt_tournament_command_creates_lists_and_cancels(bus, nats_url) -> None:
    d = definition()
    made = await asyncio.to_thread(felt, nats_url, "create", d.model_dump_json())
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.strip() == f"{d.tournament_id} nlhe-1 buy_in=50 sit-and-go registering entrants=0/6 prize_pool=0"
    (a,) = await accounts(bus, 1)
    await register(bus, d.tournament_id, a)
    listed = await asyncio.to_thread(felt, nats_url, "list")
    assert f"{d.tournament_id} nlhe-1 buy_in=50 sit-and-go registering entrants=1/6 prize_pool=50" in listed.stdout
    bad = d.model_dump(mode="json") | {"tournament_id": "other", "seats_per_table": 12}
    refused = await asyncio.to_thread(felt, nats_url, "create", json.dumps(bad))
    assert refused.returncode == 1 and len(refused.stdout.splitlines()) == 1
    assert refused.stdout.strip().endswith("(field seats_per_table, seats_outside_profile)"), refused.stdout
    cancelled = await asyncio.to_thread(felt, nats_url, "cancel", d.tournament_id)
    assert cancelled.returncode == 0 and " cancelled " in cancelled.stdout, cancelled.stdout + cancelled.stderr
    assert await available(bus, a) == 200
    missing = await asyncio.to_thread(felt, nats_url, "cancel", "no-such")
    assert missing.returncode == 1 and missing.stdout.startswith("felt tournament cancel: not_found:")
