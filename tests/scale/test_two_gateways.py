"""Several gateways: presence lives in Valkey, so a participant watching one table from two
gateways is disconnected only when the last socket anywhere closes, and a WebSocket that
reconnects to the other gateway resumes its seat from `lastSeq`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from faststream.nats import NatsBroker

from tests.gateway.conftest import READY_SECONDS, extra_env, running_stack
from tests.support.gateway import create_table, sign_up, socket_url
from tests.gateway.test_fanout import Socket

#: long enough that a declared disconnect would be seen, short against the table's grace (10 s)
QUIET = 1.5


def kinds(sock: Socket, table_id: str) -> list[str]:
    return [f["event"]["kind"] for f in sock.events(table_id)]


async def test_presence_spans_gateways_and_a_socket_resumes_on_the_other_one(
    nats_url: str, redis_url: str, tmp_path: Path
) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}"
    with running_stack(nats_url, redis_url, tmp_path, db) as stack:
        second = stack.runner.start("gateway", database_url=db, ready=False, **extra_env("gateway"))
        second.wait_ready(READY_SECONDS)
        ws1, ws2 = stack.ws_url, socket_url(second.url)
        broker = NatsBroker(nats_url)
        await broker.connect()
        socks: list[Socket] = []
        try:
            table_id = await create_table(broker)
            async with httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
                person, watcher = await sign_up(http), await sign_up(http)
            # the watcher (another person) sees the table's public events from gateway 2
            observer = await Socket.open(ws2, watcher["token"])
            a = await Socket.open(ws1, person["token"])  # the person on gateway 1 ...
            b = await Socket.open(ws2, person["token"])  # ... and on gateway 2
            socks += [observer, a, b]
            assert (await observer.send({"type": "subscribe", "tableId": table_id, "requestId": "o"}))[
                "type"
            ] == "subscribed"
            assert (await a.send({"type": "subscribe", "tableId": table_id, "requestId": "s"}))["type"] == "subscribed"
            joined = await a.send({"type": "join", "tableId": table_id, "buyIn": 100, "requestId": "j"})
            assert joined["type"] == "result" and joined["status"] == "seated", joined
            sub_b = await b.send({"type": "subscribe", "tableId": table_id, "requestId": "s"})
            assert sub_b["type"] == "subscribed", sub_b
            await observer.until(lambda: "seated" in kinds(observer, table_id))

            # closing one of the two sockets (gateway 1) declares no disconnect
            await a.close()
            await asyncio.sleep(QUIET)
            assert "disconnected" not in kinds(observer, table_id), kinds(observer, table_id)
            last_seq = max([sub_b["seq"], *(f["seq"] for f in b.events(table_id))])

            # the last one (gateway 2) does
            await b.close()
            await observer.until(lambda: "disconnected" in kinds(observer, table_id))

            # the person comes back on gateway 1 with lastSeq: the gap is replayed, the seat is theirs
            c = await Socket.open(ws1, person["token"])
            socks.append(c)
            sub = await c.send({"type": "subscribe", "tableId": table_id, "lastSeq": last_seq, "requestId": "r"})
            assert sub["type"] == "subscribed" and sub["replayed"] >= 1, sub
            await observer.until(lambda: "reconnected" in kinds(observer, table_id))
            await c.until(lambda: "disconnected" in kinds(c, table_id))  # the gap, replayed
            assert min(f["seq"] for f in c.events(table_id)) == last_seq + 1
            async with httpx.AsyncClient(base_url=second.url, timeout=30) as http2:
                table = (await http2.get(f"/api/v2/poker/tables/{table_id}", headers=person["headers"])).json()["table"]
            assert [s["participantId"] for s in table["seats"]] == [person["participantId"]]
            assert kinds(observer, table_id).count("disconnected") == 1
        finally:
            for s in socks:
                await s.close()
            await broker.stop()
