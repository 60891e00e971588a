"""First contact through the real gateway stack: fresh accounts join every default table with
no `buyIn` and finish a hand there; the join says how much it brought (REST and WebSocket)."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
import websockets

from felt_contracts import subjects
from felt_contracts.table import Admission, CreateTable, StartMode, TableConfig, TableSummary
from felt_runtime.bus import call
from felt_table.model.lobby import DEFAULT_TABLES
from tests.support.gateway import choose, new_agent, sign_up
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture
from tests.support.gateway import create_table

pytestmark = pytest.mark.timeout(180)


async def copy_of(bus: Any, cfg: TableConfig) -> TableConfig:
    """A default table's configuration under a fresh id (auto tables: a 1 s intermission)."""
    update: dict[str, Any] = {"table_id": f"{cfg.table_id}-{uuid.uuid4().hex[:6]}"}
    if cfg.start_mode is StartMode.AUTO:
        update["intermission_seconds"] = 1
    copy = cfg.model_copy(update=update)
    await call(bus, subjects.TABLE_CREATE, CreateTable(config=copy), TableSummary, timeout=30)  # a loaded CI box
    return copy


async def newcomer(http, agent: bool) -> dict:
    """A fresh account as a person, or a fresh owner's agent key for agents-only tables."""
    owner = await sign_up(http)
    return await new_agent(http, owner) if agent else owner


def action_for(cfg: TableConfig, legal: dict) -> dict:
    if legal.get("draw") is not None:
        return {"type": "draw", "cards": []}  # stand pat
    chosen = choose(legal)
    if cfg.rules_version == "ante-nl-1" and chosen["type"] in ("check", "call"):
        return {"type": "hit"}
    return chosen


async def play_one_hand(http, cfg: TableConfig, players: list[dict]) -> str:
    """Start (explicit tables) or wait for the deal (auto tables), then act until the hand is over."""
    base = f"/api/v2/poker/tables/{cfg.table_id}"
    if cfg.start_mode is StartMode.EXPLICIT:
        await http.post(f"{base}/start", headers=players[0]["headers"])
        r = await http.post(f"{base}/start", headers=players[1]["headers"])
        assert r.status_code == 200 and r.json()["status"] == "started", r.text
    hand_id = None
    for _ in range(600):
        views = [(p, (await http.get(base, headers=p["headers"])).json()["table"]) for p in players]
        hand = views[0][1].get("hand")
        if hand is None:
            await asyncio.sleep(0.1)
            continue
        hand_id = hand_id or hand["handId"]
        if hand["handId"] != hand_id or hand["phase"] == "over":
            return hand_id
        for p, view in views:
            mine = view["hand"]
            if mine["actorSeatId"] == view["yourSeatId"] and mine["legalActions"]:
                action = action_for(cfg, mine["legalActions"]) | {"handId": hand_id, "turnId": mine["turnId"]}
                r = await http.post(f"{base}/actions", json=action, headers=p["headers"])
                assert r.status_code in (200, 409), r.text
                break
        else:
            await asyncio.sleep(0.05)
    raise AssertionError(f"{cfg.table_id}: the hand did not finish")


async def first_contact(http, cfg: TableConfig, table: TableConfig) -> None:
    players = [await newcomer(http, cfg.admission is Admission.AGENTS_ONLY) for _ in range(2)]
    for p in players:
        available = (await http.get("/api/v2/poker/balance", headers=p["headers"])).json()["available"]
        r = await http.post(f"/api/v2/poker/tables/{table.table_id}/join", json={}, headers=p["headers"])
        assert r.status_code == 200, (cfg.table_id, r.text)
        expected = None if cfg.max_buy_in is None else min(cfg.max_buy_in, available)
        assert r.json()["buyIn"] == expected, (cfg.table_id, r.json())
    hand_id = await play_one_hand(http, table, players)
    hands = (await http.get(f"/api/v2/poker/tables/{table.table_id}/hands", headers=players[0]["headers"])).json()[
        "hands"
    ]
    assert [h["status"] for h in hands if h["handId"] == hand_id] == ["settled"], (cfg.table_id, hands)


async def test_a_fresh_account_joins_every_default_table_without_buy_in_and_finishes_a_hand(stack, http, bus) -> None:
    tables = [await copy_of(bus, cfg) for cfg in DEFAULT_TABLES]  # one at a time: each opens a table actor
    await asyncio.gather(*(first_contact(http, cfg, table) for cfg, table in zip(DEFAULT_TABLES, tables)))


async def test_the_websocket_join_result_says_how_much_was_brought(stack, http, bus) -> None:
    table_id = await create_table(bus, min_buy_in=20, max_buy_in=100)
    person = await sign_up(http)
    async with websockets.connect(stack.ws_url + "?token=" + person["token"]) as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
        await ws.send(json.dumps({"type": "join", "tableId": table_id, "requestId": "j"}))
        result = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert result == {
        "type": "result",
        "command": "join",
        "tableId": table_id,
        "status": "seated",
        "seq": result["seq"],
        "seat": 1,
        "buyIn": 100,
        "requestId": "j",
    }


async def test_a_rest_join_below_the_minimum_names_it(stack, http, bus) -> None:
    person = await sign_up(http)
    available = (await http.get("/api/v2/poker/balance", headers=person["headers"])).json()["available"]
    lo = (available // 2 + 1) * 2
    table_id = await create_table(bus, min_buy_in=lo, max_buy_in=lo * 2)
    r = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={}, headers=person["headers"])
    assert r.status_code == 409 and r.json()["code"] == "insufficient_funds"
    assert r.json()["details"] == {"minBuyIn": lo, "available": available}
    assert (await http.get("/api/v2/poker/balance", headers=person["headers"])).json()["available"] == available
