"""Operators manage tables at run time: create, list and close over the bus and with
`felt table create|list|close`; a bad configuration is refused naming the field."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta

import pytest

from felt_contracts import subjects
from felt_contracts.table import (
    CloseTable,
    CreateTable,
    GetView,
    Join,
    ListTables,
    TableConfig,
    TableList,
    TableSummary,
)
from felt_runtime.bus import BusError, call
from tests.table.conftest import balance, cmd, create_table, player, uid
from tests.table.test_closing import finish_hand
from tests.table.test_player_options import deal, events, seat, wait_for

GOOD = dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=100, seats=6)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (dict(table_id="Bad Id"), "table_id"),
        (dict(seats=1), "seats"),
        (dict(rules_version="nope-1"), "rules_version"),
        (dict(small_blind=5, big_blind=2), "big_blind"),
        (dict(min_buy_in=1), "min_buy_in"),
        (dict(closes_at=datetime(2030, 1, 1)), "closes_at"),
    ],
)
async def test_create_over_the_bus_refuses_a_bad_config_naming_the_field(stack, bus, change, field):
    config = TableConfig(**{**GOOD, "table_id": uid("t"), **change})
    with pytest.raises(BusError) as e:
        await call(bus, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
    assert e.value.code == "malformed" and e.value.details["field"] == field, e.value.message
    listed = await call(bus, subjects.TABLE_LIST, ListTables(), TableList)
    assert config.table_id not in [t.config.table_id for t in listed.tables]  # nothing created


async def test_close_over_the_bus_finishes_the_hand_then_cashes_out(stack, bus):
    t = await create_table(bus)
    pids = await seat(bus, t, [50, 50])
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, pids)
    summary = await call(bus, subjects.TABLE_CLOSE, CloseTable(table_id=t), TableSummary)
    assert summary.hand_running and not summary.closed  # the hand in progress plays on
    newcomer, owner = await player(bus)
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Join(participant_id=newcomer, owner_id=owner, kind="agent", buy_in=50))
    assert e.value.code == "table_closed" and e.value.details["reason"] == "operator"
    await finish_hand(bus, t)
    closed, _ = await wait_for(bus, t, seq, "table_closed")
    assert closed.detail == "operator"
    assert sorted(e.participant_id for e in await events(bus, t, seq) if e.kind == "left") == sorted(pids)
    assert [(await balance(bus, p)).reserved for p in pids] == [0, 0]
    with pytest.raises(BusError) as e:
        await call(bus, subjects.TABLE_CLOSE, CloseTable(table_id=uid("missing")), TableSummary)
    assert e.value.code == "not_found"


def felt(nats_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FELT_NATS_URL": nats_url}
    return subprocess.run(
        [sys.executable, "-m", "felt_runtime.cli", "table", *args], env=env, capture_output=True, text=True, timeout=60
    )


async def test_the_felt_table_command_creates_lists_and_closes(stack, bus, nats_url):
    table_id = uid("cli")
    config = json.dumps({**GOOD, "table_id": table_id})
    made = await asyncio.to_thread(felt, nats_url, "create", config, "--max-hands", "3", "--duration", "3600")
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.startswith(f"{table_id} nlhe-1 players=0 hands=0 max_hands=3 closes_at=")
    lobby = await call(bus, subjects.TABLE_LIST, ListTables(), TableList)
    cfg = next(t.config for t in lobby.tables if t.config.table_id == table_id)
    assert cfg.max_hands == 3 and timedelta(minutes=59) < cfg.closes_at - datetime.now(
        cfg.closes_at.tzinfo
    ) <= timedelta(hours=1)
    listed = await asyncio.to_thread(felt, nats_url, "list")
    assert any(line.startswith(f"{table_id} ") and line.endswith(" open") for line in listed.stdout.splitlines())
    again = await asyncio.to_thread(felt, nats_url, "create", config)
    assert again.returncode == 1 and again.stdout.startswith("felt table create: conflict:")
    bad = await asyncio.to_thread(felt, nats_url, "create", json.dumps({**GOOD, "table_id": uid("cli"), "seats": 1}))
    assert bad.returncode == 1 and bad.stdout.strip().endswith("(field seats)") and len(bad.stdout.splitlines()) == 1
    typo = await asyncio.to_thread(felt, nats_url, "create", json.dumps({**GOOD, "table_id": uid("cli"), "seets": 6}))
    assert typo.returncode == 1 and "field seets" in typo.stdout and len(typo.stdout.splitlines()) == 1
    closed = await asyncio.to_thread(felt, nats_url, "close", table_id)
    assert closed.returncode == 0 and closed.stdout.strip().endswith(" closed"), closed.stdout + closed.stderr
    missing = await asyncio.to_thread(felt, nats_url, "close", uid("missing"))
    assert missing.returncode == 1 and missing.stdout.startswith("felt table close: not_found:")
