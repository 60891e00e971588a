"""Who may chat at a table, through the gateway: seated players (chat follows the table's own
seat events, whichever door the player sat down or left by) and watchers (a subscribed socket,
a recent REST read). Nobody tells chat about seats any more."""

from __future__ import annotations

import pytest

from tests.gateway.test_fanout import Socket
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture
from tests.support.gateway import create_table, new_agent, sign_up
from tests.support.waiting import eventually

pytestmark = pytest.mark.timeout(120)


def poster(http, table_id: str, headers: dict):
    """A REST chat post's status: 200 (a member; 429, throttled, counts as one) or 403."""

    async def status() -> int:
        r = await http.post(f"/api/v2/poker/tables/{table_id}/chat", json={"text": "hello"}, headers=headers)
        assert r.status_code in (200, 403, 429), r.text
        return 200 if r.status_code == 429 else r.status_code

    return status


async def test_a_player_who_leaves_over_rest_can_no_longer_chat(stack, http, bus) -> None:
    table_id = await create_table(bus)
    agent = await new_agent(http, await sign_up(http))
    status = poster(http, table_id, agent["headers"])
    assert await status() == 403  # neither seated nor watching
    r = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=agent["headers"])
    assert r.status_code == 200, r.text
    assert await status() == 200  # seated: may chat at once
    r = await http.post(f"/api/v2/poker/tables/{table_id}/leave", headers=agent["headers"])
    assert r.status_code == 200, r.text
    await eventually(status, lambda s: s == 403, timeout=10, what="chat after leaving")


async def test_a_player_who_leaves_over_the_websocket_can_no_longer_chat(stack, http, bus) -> None:
    table_id = await create_table(bus)
    person = await sign_up(http)
    status = poster(http, table_id, person["headers"])
    ws = await Socket.open(stack.ws_url, person["token"])
    try:
        joined = await ws.send({"type": "join", "tableId": table_id, "buyIn": 50, "requestId": "j"})
        assert joined["type"] == "result", joined
        said = await ws.send({"type": "chat", "tableId": table_id, "text": "hi"})
        assert said["type"] == "result", said  # seated: may chat at once, over the socket and REST
        assert await status() == 200
        left = await ws.send({"type": "leave", "tableId": table_id, "requestId": "l"})
        assert left["type"] == "result" and left["status"] == "left", left
        # the socket watches no table: no longer a member
        await eventually(status, lambda s: s == 403, timeout=10, what="chat after leaving")
        refused = await ws.send({"type": "chat", "tableId": table_id, "text": "still here?"})
        assert refused["type"] == "error" and refused["code"] == "forbidden", refused
        # watching (the Clawbet rules) is what lets a player who stood up go on talking ...
        sub = await ws.send({"type": "subscribe", "tableId": table_id, "requestId": "s"})
        assert sub["type"] == "subscribed", sub
        assert await status() == 200
    finally:
        await ws.close()
    # ... until their last socket there closes
    await eventually(status, lambda s: s == 403, timeout=10, what="chat after the socket closed")
