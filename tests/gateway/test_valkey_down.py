"""Valkey down: a request that needs it (a command with an Idempotency-Key) is answered 503
`unavailable` with Retry-After, changes nothing, and works again once Valkey is back: it was a
500 `internal` before (errors.install)."""

from __future__ import annotations

from pathlib import Path

import httpx

from felt_runtime import infra
from tests.gateway.conftest import running_stack
from tests.support.gateway import create_table, sign_up
from tests.support.servers import connected, nats_server


def start_valkey(tmp: Path, port: int) -> infra.Server:
    return infra.start_valkey(port, tmp / "valkey", tmp / "valkey.log", persist=False)


async def test_valkey_down_is_503_unavailable_changes_nothing_and_heals(tmp_path: Path) -> None:
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
                table = await create_table(bus)
                path = f"/api/v2/poker/tables/{table}"
                assert (
                    await http.post(f"{path}/join", json={"buyIn": 100}, headers=owner["headers"])
                ).status_code == 200
                headers = {**owner["headers"], "Idempotency-Key": "sit-out-1"}
                valkey.stop()

                r = await http.post(f"{path}/sit-out", headers=headers)
                assert r.status_code == 503, r.text
                assert r.json()["code"] == "unavailable" and r.json()["details"] == {"dependency": "valkey"}
                assert r.headers["Retry-After"] == "1"
                seat = (await http.get(path, headers=owner["headers"])).json()["table"]["seats"][0]
                assert seat["sittingOut"] is False, "the refused sit-out was applied"

                valkey = start_valkey(tmp_path, port)
                r = await http.post(f"{path}/sit-out", headers=headers)
                assert r.status_code == 200, r.text
                seat = (await http.get(path, headers=owner["headers"])).json()["table"]["seats"][0]
                assert seat["sittingOut"] is True
    finally:
        valkey.stop()
