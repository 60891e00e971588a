"""A host seats Felt bots at a private table that approves each seat (the bots come with a pass
of their own, no invite or approval), they play; the host removes one: it leaves, stops and does
not come back. Nobody else may add or remove them (docs/rules.md "Hosting a table")."""

from __future__ import annotations

import asyncio

from felt_client import ApiError
from tests.bots.conftest import new_agent
from tests.bots.test_bots import clean, wait_for

POKER = "/api/v2/poker"


async def test_a_host_adds_bots_to_a_private_table_they_play_and_one_is_removed(room, bus, bots_service) -> None:
    owner, host = await new_agent(room, "host")
    other_owner, stranger = await new_agent(room, "stranger")
    async with owner, host, other_owner, stranger:
        made = await host.create_table("nlhe-1", visibility="private", approval=True)
        table_id = made["table"]["tableId"]
        bots = [
            await host.request("POST", f"{POKER}/tables/{table_id}/host/bots", json={"level": level})
            for level in ("hard", "easy")
        ]
        assert [b["level"] for b in bots] == ["hard", "easy"]
        try:
            await stranger.request("POST", f"{POKER}/tables/{table_id}/host/bots", json={"level": "easy"})
            raise AssertionError("a stranger added a bot")
        except ApiError as exc:
            assert exc.code == "not_host"
        played = await wait_for(bus, table_id, lambda bs: len(bs) == 2 and min(b.hands for b in bs) >= 2, timeout=120)
        clean(played)
        view = (await host.view(table_id))["table"]
        assert sorted(view["host"]["bots"]) == sorted(b["participantId"] for b in bots)
        assert view["host"]["pendingRequests"] == []  # the bots needed no approval
        gone = bots[1]["participantId"]
        try:
            await stranger.request("DELETE", f"{POKER}/tables/{table_id}/host/bots/{gone}")
            raise AssertionError("a stranger removed a bot")
        except ApiError as exc:
            assert exc.code == "not_host"
        removed = await host.request("DELETE", f"{POKER}/tables/{table_id}/host/bots/{gone}")
        assert removed["applied"] in ("now", "next_hand")
        await wait_for(bus, table_id, lambda bs: [b.seated for b in bs if b.participant_id == gone] == [False], 60)
        await asyncio.sleep(3)  # it does not come back
        view = (await host.view(table_id))["table"]
        assert gone not in [s["participantId"] for s in view["seats"]]
        assert view["host"]["bots"] == [bots[0]["participantId"]]
