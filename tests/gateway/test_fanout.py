"""Event delivery by fan-out: what the table publishes reaches every socket and long-poll of
this gateway from one subscription per table, without the gateway asking the table
(`GetEvents`) — and a missed message is noticed and filled from the table."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import nats
import pytest
import websockets

from felt_contracts import subjects
from felt_contracts.table import PRIVATE_COPY, GetEvents, TableEvent, TableRequest, TableResult
from felt_gateway.schemas import camel
from felt_runtime.bus import call
from tests.support.gateway import new_agent, sign_up
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture
from tests.support.gateway import create_table

pytestmark = pytest.mark.timeout(120)


class TableRequests:
    """Counts the `GetEvents` commands anyone sends to one table (a plain subscription on the
    table's command subject sees every request next to the table's own)."""

    def __init__(self) -> None:
        self.events = 0
        self.nc: Any = None

    async def start(self, nats_url: str, table_id: str) -> None:
        self.nc = await nats.connect(nats_url)

        async def on_msg(msg: Any) -> None:
            try:
                if json.loads(msg.data)["command"]["type"] == "events":
                    self.events += 1
            except (ValueError, KeyError, TypeError):
                pass

        await self.nc.subscribe(subjects.table_command(table_id), cb=on_msg)
        await self.nc.flush()

    async def stop(self) -> None:
        await self.nc.drain()


class Socket:
    """A WebSocket client that keeps every frame it receives."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[dict] = []
        self.replies: asyncio.Queue[dict] = asyncio.Queue()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, token: str) -> "Socket":
        return cls(await websockets.connect(url + "?token=" + token))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                self.frames.append(frame)
                if frame["type"] in ("result", "error", "subscribed"):
                    await self.replies.put(frame)
        except websockets.ConnectionClosed:
            pass

    async def send(self, frame: dict) -> dict:
        await self.ws.send(json.dumps(frame))
        return await asyncio.wait_for(self.replies.get(), 10)

    def events(self, table_id: str) -> list[dict]:
        return [f for f in self.frames if f["type"] == "event" and f["tableId"] == table_id]

    async def until(self, check, timeout: float = 10) -> None:
        for _ in range(int(timeout / 0.02)):
            if check():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("timed out waiting for frames")

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def truth(bus, table_id: str, after: int, viewer: str) -> list[dict]:
    """The table's own redaction of events after `after` for `viewer`, as the gateway renders it."""
    r = await call(
        bus,
        subjects.table_command(table_id),
        TableRequest(table_id=table_id, command=GetEvents(after_seq=after, viewer=viewer)),
        TableResult,
    )
    return [camel(e) for e in r.events]


async def test_watchers_get_pushed_events_without_the_gateway_asking_the_table(stack, http, bus, nats_url) -> None:
    table_id = await create_table(bus, admission="MIXED")
    person, spectator, agent_owner = await sign_up(http), await sign_up(http), await sign_up(http)
    agent = await new_agent(http, agent_owner)
    p_ws = await Socket.open(stack.ws_url, person["token"])
    s_ws = await Socket.open(stack.ws_url, spectator["token"])
    requests = TableRequests()
    try:
        assert (await p_ws.send({"type": "subscribe", "tableId": table_id, "requestId": "s"}))["type"] == "subscribed"
        assert (await s_ws.send({"type": "subscribe", "tableId": table_id, "requestId": "s"}))["type"] == "subscribed"
        assert (await p_ws.send({"type": "join", "tableId": table_id, "buyIn": 100, "requestId": "j"}))[
            "type"
        ] == "result"
        r = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=agent["headers"])
        assert r.status_code == 200, r.text
        await s_ws.until(lambda: any(f["seq"] >= r.json()["seq"] for f in s_ws.events(table_id)))
        before = r.json()["seq"]

        await requests.start(nats_url, table_id)
        poll = asyncio.create_task(
            http.get(
                f"/api/v2/poker/tables/{table_id}/events",
                params={"after": before, "wait": 10},
                headers=agent["headers"],
            )
        )
        await asyncio.sleep(0.2)
        await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=agent["headers"])
        started = await p_ws.send({"type": "start", "tableId": table_id, "requestId": "go"})
        assert started["type"] == "result" and started["status"] == "started", started
        last = started["seq"]
        await p_ws.until(lambda: any(f["seq"] >= last for f in p_ws.events(table_id)))
        await s_ws.until(lambda: any(f["seq"] >= last for f in s_ws.events(table_id)))
        polled = (await poll).json()
        assert polled["events"], polled
        # a reconnect with lastSeq inside what the feed holds is replayed from memory too
        again = await Socket.open(stack.ws_url, spectator["token"])
        sub = await again.send({"type": "subscribe", "tableId": table_id, "lastSeq": before, "requestId": "r"})
        assert sub["type"] == "subscribed" and sub["replayed"] > 0, sub
        await again.close()
        await asyncio.sleep(0.2)
        assert requests.events == 0, f"the gateway asked the table for events {requests.events} times"
    finally:
        await requests.stop()

    # what was pushed is exactly the table's own redaction for each viewer
    pushed_p = [f["event"] for f in p_ws.events(table_id) if f["seq"] > before]
    pushed_s = [f["event"] for f in s_ws.events(table_id) if f["seq"] > before]
    assert pushed_p == [
        e for e in await truth(bus, table_id, before, person["participantId"]) if e["seq"] <= pushed_p[-1]["seq"]
    ]
    assert pushed_s == [
        e for e in await truth(bus, table_id, before, spectator["participantId"]) if e["seq"] <= pushed_s[-1]["seq"]
    ]
    assert polled["events"] == (await truth(bus, table_id, before, agent["participantId"]))[: len(polled["events"])]
    own = [e for e in pushed_p if e["kind"] == "deal_hole" and e["participantId"] == person["participantId"]]
    assert own and all(len(e["cards"]) == 2 and e["private"] for e in own)  # the person's private copy
    assert all(not e["cards"] for e in pushed_s if e["kind"] == "deal_hole")  # the spectator sees none
    await p_ws.close()
    await s_ws.close()


async def test_a_missed_message_makes_the_gateway_refetch_from_the_table(stack, http, bus, nats_url) -> None:
    table_id = await create_table(bus)
    players = [await new_agent(http, await sign_up(http)) for _ in range(2)]
    for p in players:
        assert (
            await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=p["headers"])
        ).status_code == 200
    spectator = await sign_up(http)
    s_ws = await Socket.open(stack.ws_url, spectator["token"])
    requests = TableRequests()
    try:
        sub = await s_ws.send({"type": "subscribe", "tableId": table_id, "requestId": "s"})
        seq0 = sub["seq"]
        await requests.start(nats_url, table_id)
        # the gateway "misses" seq0 + 1: it hears seq0 + 2 first — a private turn copy whose public
        # copy it never got (what a dropped message looks like to it); no client is shown it
        ghost = TableEvent(
            table_id=table_id, seq=seq0 + 2, kind="turn", private=True, participant_id="ghost", at=datetime.now(UTC)
        )
        await requests.nc.publish(
            subjects.table_seat_events(table_id, "ghost"),
            ghost.model_dump_json().encode(),
            headers={PRIVATE_COPY: "ghost"},  # the table's mark: this seq has a public copy too
        )
        await requests.nc.flush()
        await asyncio.sleep(0.2)
        await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=players[1]["headers"])
        r = await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=players[0]["headers"])
        assert r.status_code == 200, r.text
        last = r.json()["seq"]
        await s_ws.until(lambda: any(f["seq"] >= last for f in s_ws.events(table_id)))
        assert requests.events >= 1  # the gap was filled from the table
    finally:
        await requests.stop()
    pushed = [f["event"] for f in s_ws.events(table_id)]
    assert all(e["participantId"] != "ghost" for e in pushed)
    assert pushed == [
        e for e in await truth(bus, table_id, seq0, spectator["participantId"]) if e["seq"] <= pushed[-1]["seq"]
    ]
    await s_ws.close()
