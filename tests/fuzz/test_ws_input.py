"""Bad input on the WebSocket: malformed JSON, wrong types, oversized and binary frames, deep
nesting, actions out of turn or for another seat, replayed `requestId`s, stale turns, floods and
subscriptions to unknown tables in a loop. Each gets an error frame or a close code; nothing
changes at the table; other connections carry on; the gateway holds no subscription for an
unknown table and its memory stays bounded."""

from __future__ import annotations

import asyncio
import json
import uuid

import psutil
import pytest
import websockets

from tests.support.gateway import create_table
from tests.security.conftest import agent, owner


class Socket:
    """One WebSocket: frames in order, with a helper to wait for the answer to the last frame."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.frames: asyncio.Queue[dict] = asyncio.Queue()
        self.events: list[dict] = []
        self.log: list[dict] = []
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str) -> "Socket":
        sock = cls(await websockets.connect(url, max_size=2**22))
        assert (await sock.next())["type"] == "hello"
        return sock

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                self.log.append(frame)
                if frame["type"] in ("event", "chat", "snapshot"):
                    self.events.append(frame)
                else:
                    await self.frames.put(frame)
        except websockets.ConnectionClosed:
            pass

    async def next(self, timeout: float = 10) -> dict:
        return await asyncio.wait_for(self.frames.get(), timeout)

    async def ask(self, raw: str | bytes) -> dict:
        await self.ws.send(raw)
        return await self.next()

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def table_state(http, table_id: str, who: dict) -> tuple:
    t = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=who["headers"])).json()["table"]
    hand = t["hand"] or {}
    return t["seq"], hand.get("turnId"), tuple((s["seat"], s["participantId"], s["stack"]) for s in t["seats"])


async def test_bad_frames_and_wrong_actions_change_nothing_and_others_carry_on(room, http, bus) -> None:
    table_id = await create_table(bus, admission="MIXED")
    person, other = await owner(http), await owner(http)
    bot = await agent(http, other)
    me = await Socket.open(f"{room.ws_url}?token={person['token']}")
    watcher = await Socket.open(f"{room.ws_url}?token={other['token']}")
    assert (await me.ask(json.dumps({"type": "subscribe", "tableId": table_id})))["type"] == "subscribed"
    assert (await watcher.ask(json.dumps({"type": "subscribe", "tableId": table_id})))["type"] == "subscribed"
    assert (await me.ask(json.dumps({"type": "join", "tableId": table_id, "buyIn": 100, "requestId": "j"})))[
        "type"
    ] == "result"
    assert (
        await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=bot["headers"])
    ).status_code == 200
    await me.ask(json.dumps({"type": "start", "tableId": table_id}))
    await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=bot["headers"])
    view = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=person["headers"])).json()["table"]
    hand = view["hand"]
    assert hand and hand["phase"] != "over"
    mine = view["yourSeatId"]
    turn = {"handId": hand["handId"], "turnId": hand["turnId"]}
    before = await table_state(http, table_id, person)

    deep = "[" * 100_000 + "]" * 100_000
    bad: list[tuple[str | bytes, str]] = [
        ("{not json", "malformed"),
        ("", "malformed"),
        ("null", "malformed"),
        ("[]", "malformed"),
        ('"act"', "malformed"),
        (b"\x00\xff binary", "malformed"),
        (deep[:16000], "malformed"),
        ("x" * 17000, "malformed"),
        (json.dumps({"type": 7}), "malformed"),
        (json.dumps({"type": "act"}), "validation"),
        (json.dumps({"type": "act", "tableId": table_id, "action": {"type": "bet", "amount": "ten"}}), "validation"),
        (json.dumps({"type": "act", "tableId": table_id, "action": {"type": "bet", "amount": -5}}), "validation"),
        (
            json.dumps({"type": "act", "tableId": table_id, "action": {"type": "raiseTo", "amount": 10**30}}),
            "validation",
        ),
        (json.dumps({"type": "act", "tableId": ["x"], "action": {"type": "fold"}}), "validation"),
        (json.dumps({"type": "join", "tableId": table_id, "buyIn": True}), "validation"),
        (json.dumps({"type": "subscribe", "tableId": "../../etc", "lastSeq": -1}), "validation"),
        (json.dumps({"type": "chat", "tableId": table_id, "text": None}), "validation"),
        (json.dumps({"type": "subscribe", "tableId": "a" * 5000}), "validation"),
    ]
    for raw, code in bad:
        err = await me.ask(raw)
        assert err["type"] == "error" and err["code"] == code, (str(raw)[:60], err)
    actor_is_me = hand["actorSeatId"] == mine
    wrong = [
        # a turn that is not this seat's (or, when it is, a stale one), for another seat, or a later hand
        {
            "type": "act",
            "tableId": table_id,
            "action": {"type": "fold"},
            "handId": hand["handId"],
            "turnId": hand["turnId"] + (0 if not actor_is_me else 5),
        },
        {
            "type": "act",
            "tableId": table_id,
            "action": {"type": "fold"},
            **turn,
            "participantId": bot["participantId"],
            "seat": 1,
        },
        {"type": "act", "tableId": table_id, "action": {"type": "fold"}, "handId": "another-hand", "turnId": 0},
        {"type": "leave", "tableId": "nosuchtable"},
    ]
    for frame in wrong:
        try:
            err = await me.ask(json.dumps(frame))
        except TimeoutError:
            pytest.fail(f"no answer to {frame}; got {me.log[-8:]}")
        if actor_is_me and frame.get("participantId"):
            assert err["type"] == "error" and err["code"] == "validation", err  # unknown fields are refused
            continue
        assert err["type"] == "error" and err["code"] in (
            "not_your_turn",
            "stale_turn",
            "not_found",
            "validation",
            "hand_closed",
            "not_seated",
        ), (frame, err)
    assert await table_state(http, table_id, person) == before  # nothing changed at the table

    # a replayed requestId applies once: the actor acts over REST or the socket, then replays
    if actor_is_me:
        act = json.dumps({"type": "act", "tableId": table_id, "action": {"type": "call"}, **turn, "requestId": "once"})
        first = await me.ask(act)
        assert first["type"] == "result", first
        after = await table_state(http, table_id, person)
        again = await me.ask(act)
        assert again["type"] in ("result", "error") and again.get("requestId") == "once", again
        assert await table_state(http, table_id, person) == after
        stale = await me.ask(
            json.dumps({"type": "act", "tableId": table_id, "action": {"type": "fold"}, **turn, "requestId": "late"})
        )
        assert stale["type"] == "error" and stale["code"] in ("stale_turn", "not_your_turn"), stale
        assert await table_state(http, table_id, person) == after

    # a flood closes only the flooder
    flooder = await websockets.connect(f"{room.ws_url}?token={person['token']}")
    await flooder.recv()
    with pytest.raises(websockets.ConnectionClosed) as closed:
        for _ in range(400):
            await flooder.send('{"type":"ping"}')
        for _ in range(1000):
            await asyncio.wait_for(flooder.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    assert (await watcher.ask(json.dumps({"type": "ping", "t": 1}))) == {"type": "pong", "t": 1}
    said = await me.ask(json.dumps({"type": "chat", "tableId": table_id, "text": "still here", "requestId": "c"}))
    assert said["type"] == "result", said
    for _ in range(50):
        if any(f["type"] == "chat" and f["message"]["text"] == "still here" for f in watcher.events):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the watcher stopped hearing the table")
    await me.close()
    await watcher.close()


async def test_subscribing_to_unknown_tables_in_a_loop_holds_no_subscription_and_little_memory(room, http, bus) -> None:
    person = await owner(http)
    gateway = psutil.Process(room.stack.gateway.process.pid)
    unknown: list[str] = []
    rss = []
    for _ in range(6):
        sock = await Socket.open(f"{room.ws_url}?token={person['token']}")
        for _ in range(40):  # within the connection's frame budget
            tid = f"nosuch{uuid.uuid4().hex[:12]}"
            unknown.append(tid)
            err = await sock.ask(json.dumps({"type": "subscribe", "tableId": tid, "lastSeq": 3}))
            assert err["type"] == "error" and err["code"] in ("not_found", "unavailable"), err
        for tid in unknown[-20:]:  # the long-poll door too
            r = await http.get(f"/api/v2/poker/tables/{tid}/events", params={"after": 0}, headers=person["headers"])
            assert r.status_code in (404, 503), r.text
        await sock.close()
        rss.append(gateway.memory_info().rss)
    await asyncio.sleep(0.5)
    assert room.subscriptions("felt.evt.table.nosuch") == 0  # none held, not even for the linger
    table_id = await create_table(bus)  # ... while a watched real table keeps its one subscription
    sock = await Socket.open(f"{room.ws_url}?token={person['token']}")
    assert (await sock.ask(json.dumps({"type": "subscribe", "tableId": table_id})))["type"] == "subscribed"
    assert room.subscriptions(f"felt.evt.table.{table_id}.") == 1
    await sock.close()
    assert rss[-1] - rss[1] < 30 * 2**20, rss  # bounded: no per-probe state kept
