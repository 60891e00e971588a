"""A short chaos run over the whole room (tests/chaos/room.py; `make chaos` is the long one):
every victim — table, wallet, limits, timer, chat, gateway, NATS and Valkey — is killed with
SIGKILL once, in a seeded random order, and started again; after each, every service is ready
and every playing table deals again; at the end no chip is lost, no hand is left open, every
cancelled hand was refunded exactly once, stacks equal reserves and the WebSocket watcher
resumed with `lastSeq` without a gap."""

from __future__ import annotations

import json

import pytest

from tests.chaos.room import VICTIMS, Room, chaos

SEED = 20261201


@pytest.fixture
def room(tmp_path):
    r = Room(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}", bots=4)
    try:
        r.start()
        yield r
    finally:
        r.stop()


@pytest.mark.timeout(240)
async def test_every_process_of_the_room_killed_once_loses_nothing_and_play_resumes(room) -> None:
    report = await chaos(room, seconds=600, seed=SEED, kills=len(VICTIMS), gap=(0.5, 1.5), down=(0.2, 1.0))
    print("\n" + json.dumps(report.as_json(), indent=1))
    assert report.failures == []
    assert sorted(k.victim for k in report.kills) == sorted(VICTIMS)
    assert report.chips_lost == 0 and report.checks >= len(VICTIMS)
    assert report.hands_settled > len(VICTIMS)
    assert report.ws.get("reconnects", 0) >= 1 and report.ws.get("events", 0) > 0
