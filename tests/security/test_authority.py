"""Authority: nobody acts for another seat (REST or WebSocket, whatever the body says), one owner
never sits twice at one table (not even through two agents joining at the same instant), and
parallel requests never take an owner past a cap or an account below zero."""

from __future__ import annotations

import asyncio
import json

import websockets

from tests.support.gateway import create_table
from tests.security.conftest import agent, owner


async def view(http, table_id: str, who: dict) -> dict:
    r = await http.get(f"/api/v2/poker/tables/{table_id}", headers=who["headers"])
    assert r.status_code == 200, r.text
    return r.json()["table"]


async def test_nobody_acts_for_another_seat(room, http, bus) -> None:
    table_id = await create_table(bus, admission="MIXED")
    bots = [await agent(http, await owner(http), f"s{i}") for i in range(2)]
    person = await owner(http)
    for who in bots + [person]:
        assert (
            await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=who["headers"])
        ).status_code == 200
    for who in bots + [person]:
        await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=who["headers"])
    before = await view(http, table_id, bots[0])
    hand = before["hand"]
    assert hand and hand["phase"] != "over"
    seat_pid = {s["seat"]: s["participantId"] for s in before["seats"]}
    actor_pid = seat_pid[hand["actorSeatId"]]
    others = [w for w in bots + [person] if w["participantId"] != actor_pid]
    turn = {"handId": hand["handId"], "turnId": hand["turnId"]}
    for who in others:
        for body in (
            {"type": "fold"} | turn,
            {"type": "fold", "participantId": actor_pid} | turn,
            {"type": "fold", "seat": hand["actorSeatId"]} | turn,
        ):
            r = await http.post(f"/api/v2/poker/tables/{table_id}/actions", json=body, headers=who["headers"])
            assert r.status_code in (409, 422), r.text
            assert r.json()["code"] in ("not_your_turn", "not_seated", "validation"), r.text
        r = await http.post(
            f"/api/v2/poker/tables/{table_id}/actions",
            json={"type": "fold"} | turn,
            headers={**who["headers"], "X-Participant-Id": actor_pid},
        )
        assert r.status_code == 409 and r.json()["code"] in ("not_your_turn", "not_seated")
    if person["participantId"] != actor_pid:  # the WebSocket: the socket's credentials decide, not the frame
        async with websockets.connect(f"{room.ws_url}?token={person['token']}") as ws:
            assert json.loads(await ws.recv())["type"] == "hello"
            await ws.send(
                json.dumps(
                    {
                        "type": "act",
                        "tableId": table_id,
                        "action": {"type": "fold"},
                        **turn,
                        "participantId": actor_pid,
                        "requestId": "spoof",
                    }
                )
            )
            while (frame := json.loads(await asyncio.wait_for(ws.recv(), 5)))["type"] not in ("error", "result"):
                pass
            assert frame["type"] == "error" and frame["code"] in ("not_your_turn", "not_seated", "validation"), frame
    after = await view(http, table_id, bots[0])
    assert after["hand"]["turnId"] == hand["turnId"] and after["hand"]["actorSeatId"] == hand["actorSeatId"]
    assert after["seq"] == before["seq"]  # nothing happened at the table


async def test_one_owner_never_sits_twice_even_joining_at_once(room, http, bus) -> None:
    table_id = await create_table(bus, admission="MIXED", seats=9)
    me = await owner(http)
    mine = [await agent(http, me, f"twin{i}") for i in range(4)] + [me]
    joins = await asyncio.gather(
        *(http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=w["headers"]) for w in mine)
    )
    assert sorted(r.status_code for r in joins)[0] == 200 and [r.status_code for r in joins].count(200) == 1, [
        r.text for r in joins
    ]
    for r in joins:
        if r.status_code != 200:
            assert 400 <= r.status_code < 500 and r.json()["code"] in ("already_seated", "admission", "conflict"), (
                r.text
            )
    seated = [s["participantId"] for s in (await view(http, table_id, me))["seats"]]
    assert len(seated) == 1 and seated[0] in {w["participantId"] for w in mine}
    for w in mine:  # and no chips are held for the refused ones
        b = (await http.get("/api/v2/poker/balance", headers=w["headers"])).json()
        assert b["reserved"] == (50 if w["participantId"] == seated[0] else 0), b


async def test_parallel_buy_ins_never_exceed_a_cap_or_a_balance(room, http, bus) -> None:
    me = await owner(http)
    cap = await http.post(
        "/api/v2/poker/limits/caps", json={"scope": "owner", "limit": "daily_buy_in", "cap": 100}, headers=me["headers"]
    )
    assert cap.status_code == 200 and cap.json()["applied"] is True
    bots = [await agent(http, me, f"r{i}") for i in range(6)]
    tables = [await create_table(bus) for _ in bots]
    joins = await asyncio.gather(
        *(
            http.post(f"/api/v2/poker/tables/{t}/join", json={"buyIn": 40}, headers=b["headers"])
            for t, b in zip(tables, bots)
        )
    )
    ok = [r for r in joins if r.status_code == 200]
    assert len(ok) == 2, [r.text for r in joins]  # 40 + 40 <= 100 < 120
    assert all(r.json()["code"] == "limit_exceeded" for r in joins if r.status_code != 200), [r.text for r in joins]
    for _ in range(150):  # the counters follow the wallet's transfer events (batched: allow a loaded machine 15 s)
        used = (await http.get("/api/v2/poker/limits", headers=me["headers"])).json()["owner"]["limits"][
            "daily_buy_in"
        ]["used"]
        if used == 80:
            break
        await asyncio.sleep(0.1)
    assert used == 80
    reserved = [(await http.get("/api/v2/poker/balance", headers=b["headers"])).json()["reserved"] for b in bots]
    assert sorted(reserved) == [0] * 4 + [40] * 2

    # one account, many tables at once: one active session per participant (the Clawbet rules), and
    # never more reserved than the balance (joins that raced past the session rule: refused funds)
    rich = await agent(http, await owner(http), "one-balance")
    start = (await http.get("/api/v2/poker/balance", headers=rich["headers"])).json()["available"]
    tables = [await create_table(bus, max_buy_in=start) for _ in range(5)]
    amount = start // 2
    joins = await asyncio.gather(
        *(http.post(f"/api/v2/poker/tables/{t}/join", json={"buyIn": amount}, headers=rich["headers"]) for t in tables)
    )
    assert [r.status_code for r in joins].count(200) == 1, [r.text for r in joins]
    assert all(r.json()["code"] in ("already_seated", "insufficient_funds") for r in joins if r.status_code != 200)
    b = (await http.get("/api/v2/poker/balance", headers=rich["headers"])).json()
    assert b["available"] == start - amount >= 0 and b["reserved"] == amount
