"""Valkey down: REST play needs none of it. An action's `Idempotency-Key` is the table command's
message id, so a retry after a lost reply gets the table's remembered outcome and the action
applies once; a login's throttle counts nothing but lets it in (docs/gateway.md, Idempotency)."""

from __future__ import annotations

from pathlib import Path

import httpx

from felt_contracts.table import GetEvents
from felt_runtime import infra
from tests.gateway.conftest import running_stack
from tests.gateway.test_play import heads_up
from tests.support.gateway import sign_up
from tests.support.servers import connected
from tests.support.servers import nats_server
from tests.support.waiting import eventually
from tests.table.conftest import cmd


def start_valkey(tmp: Path, port: int) -> infra.Server:
    return infra.start_valkey(port, tmp / "valkey", tmp / "valkey.log", persist=False)


async def test_with_valkey_down_an_action_retried_after_a_lost_reply_applies_once(
    tmp_path: Path,
) -> None:
    # a NATS of its own: on the package's NATS another stack's table service could answer for this table
    (tmp_path / "gw").mkdir()
    port = infra.free_port()
    valkey = start_valkey(tmp_path, port)
    try:
        with (
            nats_server(tmp_path / "nats") as nats_url,
            running_stack(
                nats_url, valkey.url, tmp_path / "gw", f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}"
            ) as stack,
        ):
            async with connected(nats_url) as bus, httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
                owner = await sign_up(http)
                table_id, players, view = await heads_up(http, bus)
                valkey.stop()

                login = {"email": owner["email"], "password": "correct horse battery"}
                assert (await http.post("/api/v2/accounts/login", json=login)).status_code == 200

                hand = view["hand"]
                seat_pid = {s["seat"]: s["participantId"] for s in view["seats"]}
                actor = next(p for p in players if p["participantId"] == seat_pid[hand["actorSeatId"]])
                path = f"/api/v2/poker/tables/{table_id}/actions"
                body = {"type": "call", "handId": hand["handId"], "turnId": hand["turnId"]}
                headers = {**actor["headers"], "Idempotency-Key": "lost-1"}
                try:  # the reply is lost: the client gives up before it comes
                    await http.post(path, json=body, headers=headers, timeout=httpx.Timeout(10, read=0.001))
                except httpx.TimeoutException:
                    pass

                def calls(events):
                    return [e for e in events if e.kind == "call" and e.participant_id == actor["participantId"]]

                applied = await eventually(
                    lambda: cmd(bus, table_id, GetEvents(after_seq=0)), lambda r: calls(r.events), what="the call"
                )
                again = await http.post(path, json=body, headers=headers)
                assert again.status_code == 200, again.text
                assert again.headers.get("Idempotent-Replayed") == "true" and again.json()["replayed"] is True
                assert again.json()["seq"] >= calls(applied.events)[0].seq
                events = (await cmd(bus, table_id, GetEvents(after_seq=0))).events
                assert len(calls(events)) == 1  # applied once
    finally:
        valkey.stop()
