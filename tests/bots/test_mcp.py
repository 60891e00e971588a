"""`felt mcp` driven by the MCP SDK's own client session over stdio (and streamable HTTP), against the real room: the
tools and the rules resource are listed and read, an agent joins an nlhe-1 table with an Easy bot
and plays a hand to its end by choosing from the view's `legalActions`; an action for a turn that
is over and an amount out of bounds get the API's error codes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from felt_contracts import subjects
from felt_contracts.bots import AddBots, BotsStatus
from felt_runtime import infra
from felt_runtime.bus import call
from tests.bots.conftest import create_table, new_agent

TOOLS = {
    "read_rules",
    "list_tables",
    "join",
    "start",
    "view",
    "wait_for_turn",
    "act",
    "chat",
    "read_chat",
    "show",
    "sit_out",
    "sit_in",
    "leave",
    "hand_history",
    "balance",
    "sessions",
    "ladder",
    "start_match",
    "match_result",
}


async def use(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def refused(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The API's error a tool call reports: `{status, code, message, details}`."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]  # a tool error is one text block
    return json.loads(text[text.index("{") :])["error"]


def choose(legal: dict[str, Any]) -> dict[str, Any]:
    """Check or call: the hand reaches its end whatever the bot does."""
    return {"type": "check"} if legal["check"] else {"type": "call"} if legal["call"] is not None else {"type": "fold"}


async def test_an_mcp_client_plays_a_hand_against_an_easy_bot(room, bus, bots_service) -> None:
    _, agent = await new_agent(room, "mcp-agent")
    table_id = await create_table(bus)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "felt_runtime.cli", "mcp", "--url", room.url, "--api-key", str(agent.credential)],
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) >= TOOLS
        assert "Raise" in (tools["act"].description or ""), "the act tool quotes the rules page's actions"
        assert "untrusted" in (tools["read_chat"].description or "")
        rules = await session.read_resource("felt://rules/nlhe-1")
        assert "Rules version: `nlhe-1`" in rules.contents[0].text  # type: ignore[union-attr]  # markdown is text

        joined = await use(session, "join", table_id=table_id, buy_in=100)
        assert joined["status"] == "seated"
        await call(bus, subjects.BOTS_ADD, AddBots(table_id=table_id, level="easy", count=1), BotsStatus, timeout=30)

        hand_id: str | None = None
        stale: dict[str, Any] | None = None
        checked = False
        for _ in range(200):
            waited = await use(session, "wait_for_turn", table_id=table_id, timeout_seconds=20)
            table = waited["table"]
            hand = table.get("hand") or {}
            if hand_id is not None and (hand.get("handId") != hand_id or hand.get("phase") == "over"):
                break  # the hand we played is over
            if not waited["yourTurn"]:
                if not hand and table["config"]["startMode"] == "explicit":
                    start = await session.call_tool("start", {"table_id": table_id})  # refused until the bot is ready
                    assert not start.is_error or "not_enough_ready" in str(start.content)
                continue
            hand_id = hand_id or hand["handId"]
            legal = hand["legalActions"]
            if not checked:
                bounds = legal.get("raiseTo") or legal.get("bet")
                if bounds:
                    kind = "raiseTo" if legal.get("raiseTo") else "bet"
                    bad = await refused(
                        session,
                        "act",
                        table_id=table_id,
                        type=kind,
                        amount=bounds["max"] + 1,
                        hand_id=hand["handId"],
                        turn_id=hand["turnId"],
                    )
                    assert (bad["status"], bad["code"]) == (400, "invalid_amount")
                    checked = True
            acted = await use(
                session, "act", table_id=table_id, hand_id=hand["handId"], turn_id=hand["turnId"], **choose(legal)
            )
            assert acted["status"] == "ok"
            if stale is None:  # the same turn again, now that it is over
                stale = await refused(
                    session, "act", table_id=table_id, type="fold", hand_id=hand["handId"], turn_id=hand["turnId"]
                )
        assert hand_id is not None and checked, "the agent acted in a hand"
        assert stale is not None and (stale["status"], stale["code"]) == (409, "stale_turn")

        history = await use(session, "hand_history", table_id=table_id)
        assert hand_id in [h["handId"] for h in history["hands"]], "the hand played is in the history"
        assert table_id in (await use(session, "balance"))["reserves"], "seated: a reserve at the table"
        me = (await agent.balance()).account_id
        ranked = await use(session, "ladder", limit=500)
        assert me in [e["participantId"] for e in ranked["entries"]], "the hand played is on the ladder"
        bad = await refused(session, "start_match", level="easy", hands=3)
        assert (bad["status"], bad["code"], bad["details"]["field"]) == (422, "validation", "hands")
        left = await use(session, "leave", table_id=table_id)
        assert left["status"] in ("left", "leaving")


async def test_felt_mcp_serves_the_same_tools_over_streamable_http(room, bus) -> None:
    """`felt mcp --http`: an MCP client connects to `/mcp` over streamable HTTP and gets the same
    tools, the rules resource, and the API's answers (a join and the balance that shows it)."""
    _, agent = await new_agent(room, "mcp-http")
    table_id = await create_table(bus)
    port = infra.free_port()
    args = ["-m", "felt_runtime.cli", "mcp", "--url", room.url, "--api-key", str(agent.credential), "--http"]
    server = subprocess.Popen([sys.executable, *args, "--port", str(port)])
    try:
        for _ in range(600):  # the SDK's server takes a few seconds to import and listen
            if infra.port_open("127.0.0.1", port):
                break
            await asyncio.sleep(0.1)
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            assert {tool.name for tool in (await session.list_tools()).tools} >= TOOLS
            rules = await session.read_resource("felt://rules/nlhe-1")
            assert "Rules version: `nlhe-1`" in rules.contents[0].text  # type: ignore[union-attr]  # markdown is text
            assert (await use(session, "join", table_id=table_id, buy_in=100))["status"] == "seated"
            assert (await use(session, "balance"))["reserves"] == {table_id: 100}
            bad = await refused(session, "join", table_id="no-such-table", buy_in=100)
            assert bad["status"] == 404
    finally:
        server.terminate()
        server.wait(timeout=30)
