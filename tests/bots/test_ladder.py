"""The ladder and benchmark matches in a real room: an agent (a calling station driven by
felt_client) plays a 200-hand duplicate match against the Easy bot, which reports bb/100 with its
95% interval; the ladder lists both, by opponents. Bad input is refused with a stable code naming
the field, a retried start answers the same match, and an owner's matches per day are capped. A
restart of the bots service seats the match's bot again."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
import sqlalchemy as sa

from felt_client import ApiError
from felt_contracts import subjects
from felt_contracts.bots import BotsQuery, BotsStatus
from felt_runtime.bus import call
from tests.bots.conftest import Room, new_agent
from tests.support.agents import calling_station
from tests.support.waiting import eventually

HANDS = 200


def mirrored_pairs(room: Room, table_id: str, agent_id: str) -> None:
    """In the stored histories (private cards included), each pair's second hand dealt the agent the
    bot's hole cards of the first and the bot the agent's, on the same board as far as both went."""
    engine = sa.create_engine(room.database_url.replace("+aiosqlite", ""))
    with engine.connect() as conn:
        records = [
            json.loads(r)
            for r in conn.execute(
                sa.text("select record from table_hands where table_id = :t order by ended_at, hand_id"),
                {"t": table_id},
            ).scalars()
        ]
    engine.dispose()

    def holes(rec: dict) -> dict[str, list[str]]:
        seats = rec["participants"]
        return {seats[str(op["seat"])]: op["cards"] for op in rec["operations"] if op["kind"] == "deal_hole"}

    assert len(records) == HANDS
    for first, second in zip(records[::2], records[1::2], strict=True):
        a, b = holes(first), holes(second)
        bot = next(pid for pid in a if pid != agent_id)
        assert (b[agent_id], b[bot]) == (a[bot], a[agent_id])
        assert second["button"] != first["button"]
        shared = min(len(first["board"]), len(second["board"]))
        assert first["board"][:shared] == second["board"][:shared]


async def refusal(call: Any) -> ApiError:
    with pytest.raises(ApiError) as err:
        await call
    return err.value


async def test_a_200_hand_duplicate_match_against_easy_reports_its_interval(room: Room, bots_service) -> None:
    owner, agent = await new_agent(room, "station")
    async with owner, agent:
        me = (await agent.balance()).account_id
        started = time.monotonic()
        match = await agent.start_match("easy", HANDS)
        assert (match["status"], match["hands"], match["participantId"]) == ("running", HANDS, me)
        await calling_station(agent, match["tableId"])
        result = await eventually(
            lambda: agent.match(match["matchId"]), lambda m: m["status"] == "finished", timeout=60, what="match"
        )
        seconds = time.monotonic() - started
        print(f"match of {HANDS} hands: {seconds:.0f} s, {result['bbPer100']:+.1f} ± {result['ci95']:.1f} bb/100")
        assert result["handsPlayed"] == HANDS
        assert result["ci95"] > 0 and result["bbPer100"] is not None

        mirrored_pairs(room, match["tableId"], match["participantId"])

        ladder = {e["participantId"]: e for e in await agent.ladder()}
        mine, bot = ladder[me], ladder[match["opponentId"]]
        assert bot["bot"] == "easy" and mine["bot"] is None
        easy = next(s for s in mine["byOpponents"] if s["opponents"] == "easy")
        assert easy["hands"] == mine["hands"] == HANDS
        assert easy["netChips"] == result["netChips"] == -bot["netChips"]
        assert mine["ci95"] > 0
        assert [s["opponents"] for s in bot["byOpponents"]] == ["agents"]


async def test_bad_input_is_refused_with_the_field_and_matches_are_capped(room: Room, bots_service) -> None:
    owner, agent = await new_agent(room, "capped")
    async with owner, agent:
        for body, field in (
            ({"level": "easy", "hands": 3}, "hands"),  # each deal is played twice
            ({"level": "easy", "hands": 2000}, "hands"),  # past FELT_TABLE_MATCH_MAX_HANDS
            ({"level": "godlike", "hands": 20}, "level"),
            ({"level": "easy", "hands": "many"}, "hands"),
        ):
            err = await refusal(agent.request("POST", "/api/v2/poker/matches", json=body))
            assert (err.status, err.code, err.details.get("field")) == (422, "validation", field), body
        err = await refusal(owner.request("POST", "/api/v2/poker/matches", json={"level": "easy", "hands": 20}))
        assert (err.status, err.code) == (403, "forbidden")
        err = await refusal(agent.match("0000000000"))
        assert (err.status, err.code) == (404, "not_found")

        first = await agent.start_match("easy", 20, idempotency_key="bench-1")
        again = await agent.start_match("easy", 20, idempotency_key="bench-1")
        assert again["matchId"] == first["matchId"] and again["tableId"] == first["tableId"]
        err = await refusal(agent.start_match("hard", 20, idempotency_key="bench-1"))  # the key, other terms
        assert (err.status, err.code) == (409, "conflict")
        await agent.start_match("normal", 20)
        err = await refusal(agent.start_match("hard", 20))  # FELT_TABLE_MATCHES_PER_DAY is 2 here
        assert (err.status, err.code, err.details.get("reason")) == (403, "limit_exceeded", "matches_per_day")
        assert err.details["next_at"] > first["createdAt"]

        stranger_owner, stranger = await new_agent(room, "stranger")
        async with stranger_owner, stranger:
            err = await refusal(stranger.join(first["tableId"]))
            assert (err.status, err.code) == (403, "admission")


async def test_a_match_goes_on_after_a_restart_of_the_bots_service(room: Room, bus, bots_service) -> None:
    owner, agent = await new_agent(room, "resumed")
    async with owner, agent:
        match = await agent.start_match("normal", 20)
        play = asyncio.create_task(calling_station(agent, match["tableId"]))
        await eventually(lambda: agent.match(match["matchId"]), lambda m: m["handsPlayed"] >= 4, timeout=120)
        await asyncio.to_thread(bots_service.restart)  # its bot leaves; the restarted service seats it again
        bots = await eventually(
            lambda: call(bus, subjects.BOTS_STATUS, BotsQuery(table_id=match["tableId"]), BotsStatus),
            lambda status: any(b.seated and b.actions > 0 for b in status.bots),
            timeout=120,
            what="the match's bot playing again",
        )
        assert [b.participant_id for b in bots.bots] == [match["opponentId"]]
        await asyncio.wait_for(play, timeout=300)
        result = await agent.match(match["matchId"])
        assert (result["status"], result["handsPlayed"]) == ("finished", 20)
