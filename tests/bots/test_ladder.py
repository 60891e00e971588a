"""The ladder and benchmark matches in a real room: an agent (a calling station driven by
felt_client) plays a 200-hand duplicate match against the Easy bot, which reports bb/100 with its
95% interval; the ladder lists both, by opponents. Bad input is refused with a stable code naming
the field, a retried start answers the same match and bot, and an owner's matches per day are
capped. The gateway makes a match in three steps (a bot held, the table made, the bot seated): a
hold never followed up lapses and frees its bot, the bot the table's terms name is the one that
plays, a gateway killed between its steps leaves nothing a retry does not finish, and a match
started while the bots service is down is `unavailable` and makes no table. A restart of the bots
service seats the match's bot again."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from felt_client import ApiError, FeltClient, Retry
from felt_contracts import subjects
from felt_contracts.bots import BotsQuery, BotsStatus
from felt_contracts.ladder import CreateMatch, MatchBot, MatchResult, MatchTerms, PlayMatch, ReleaseBot, ReserveBot
from felt_runtime.bus import call
from tests.bots.conftest import MATCH_HOLD_SECONDS, Room, new_agent
from tests.support.agents import calling_station
from tests.support.pausing import paused
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
        assert again["opponentId"] == first["opponentId"]
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


async def reserve(bus: Any, match_id: str, level: str = "hard") -> str:
    """The gateway's first step: the bot held for `match_id`."""
    held = await call(
        bus, subjects.BOTS_MATCH_RESERVE, ReserveBot(match_id=match_id, level=level), MatchBot, timeout=30
    )
    assert held.participant_id is not None
    return held.participant_id


async def test_a_hold_never_followed_up_lapses_and_the_bot_the_table_names_plays(room: Room, bus, bots_service) -> None:
    """The test takes the gateway's steps on the bus: a hold per match id; holds never followed up
    (their gateway died) lapse and their bots are held again, no bot made; the table answers the
    match it made whatever bot a retry holds, and the bot its terms name plays."""
    ids = [uuid.uuid4().hex[:12] for _ in range(5)]
    a = await reserve(bus, ids[0])
    assert await reserve(bus, ids[0]) == a
    b = await reserve(bus, ids[1])
    assert b != a, "a held bot is not held for another match"
    await asyncio.sleep(MATCH_HOLD_SECONDS + 0.5)  # neither followed up
    c, d = await reserve(bus, ids[2]), await reserve(bus, ids[3])
    assert {c, d} == {a, b}, "the lapsed holds' bots are free again"
    freed = await call(bus, subjects.BOTS_MATCH_RELEASE, ReleaseBot(match_id=ids[3]), MatchBot)
    assert (freed.participant_id, freed.state) == (d, "released")
    assert await reserve(bus, ids[4]) == d  # freed at once, held again

    owner, agent = await new_agent(room, "held")
    async with owner, agent:
        me = (await agent.balance()).account_id
        terms = MatchTerms(match_id=ids[4], owner_id=me, participant_id=me, opponent_id=c, level="hard", deals=1)
        made = await call(bus, subjects.TABLE_MATCH_CREATE, CreateMatch(terms=terms), MatchResult)
        retried = terms.model_copy(update={"opponent_id": d})  # a retry holding another bot
        again = await call(bus, subjects.TABLE_MATCH_CREATE, CreateMatch(terms=retried), MatchResult)
        assert (again.table_id, again.terms.opponent_id) == (made.table_id, c)
        seated = await call(bus, subjects.BOTS_MATCH_PLAY, PlayMatch(match=again), MatchBot, timeout=30)
        assert (seated.participant_id, seated.state) == (c, "playing")
        assert await reserve(bus, uuid.uuid4().hex[:12]) == d, "the held bot the table did not name was freed"
        await calling_station(agent, made.table_id)
        result = await agent.match(ids[4])
        assert (result["status"], result["opponentId"]) == ("finished", c)


async def test_a_match_is_unavailable_and_makes_no_table_while_the_bots_service_is_down(
    room: Room, bus, bots_service
) -> None:
    owner, agent = await new_agent(room, "no-bots")
    once = FeltClient(room.url, api_key=agent.credential, retry=Retry(attempts=1))
    async with owner, agent, once:
        me = (await agent.balance()).account_id
        creates = await bus.connection.subscribe(subjects.TABLE_MATCH_CREATE)
        await asyncio.to_thread(bots_service.kill9)
        try:
            err = await refusal(once.start_match("easy", 20, idempotency_key="no-bots"))
            assert (err.status, err.code) == (503, "unavailable")
            await bus.connection.flush()
            assert creates.pending_msgs == 0, "the table was asked for a match"
        finally:
            await creates.unsubscribe()
            bots_service.start()
            await asyncio.to_thread(bots_service.wait_ready, 90)
        tables = await agent.tables(kind="agent")
        assert [t for t in tables if (t.get("match") or {}).get("participantId") == me] == []


async def test_a_gateway_killed_between_its_steps_leaves_a_match_its_retry_finishes(
    room: Room, bus, bots_service
) -> None:
    """The gateway held a bot and asked the table (paused) for the match's table, then died: the
    table makes it once it runs again; the agent's retry (the same key, another gateway process)
    answers that match with the bot it names, which plays it to the end."""
    owner, agent = await new_agent(room, "killed")
    once = FeltClient(room.url, api_key=agent.credential, retry=Retry(attempts=1))
    gateway = room.procs["gateway"]
    async with owner, agent, once:
        creates = await bus.connection.subscribe(subjects.TABLE_MATCH_CREATE)
        try:
            assert room.procs["table"].process is not None
            with paused(room.procs["table"].process):
                first = asyncio.create_task(once.start_match("easy", 2, idempotency_key="killed-1"))
                asked = CreateMatch.model_validate_json((await creates.next_msg(timeout=60)).data)
                await asyncio.to_thread(gateway.kill9)
            assert isinstance((await asyncio.gather(first, return_exceptions=True))[0], Exception)
        finally:
            await creates.unsubscribe()
            gateway.start()
            await asyncio.to_thread(gateway.wait_ready, 90)
        match = await agent.start_match("easy", 2, idempotency_key="killed-1")
        assert (match["matchId"], match["opponentId"]) == (asked.terms.match_id, asked.terms.opponent_id)
        await calling_station(agent, match["tableId"])
        result = await agent.match(match["matchId"])
        assert (result["status"], result["handsPlayed"]) == ("finished", 2)
