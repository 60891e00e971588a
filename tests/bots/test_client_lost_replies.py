"""felt_client through a real TCP proxy that loses replies: the room received the request and
answered, the client saw its connection drop. Every POST the client sends again carries an
`Idempotency-Key`, so each is applied once however many tries reached the room; and the
`events` iterator picks up after the last event it yielded when a long-poll's reply is lost."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
import pytest

from felt_client import ApiError, FeltClient, Retry
from felt_contracts import subjects
from felt_contracts.tournament import CreateTournament, TournamentView
from felt_runtime.bus import call
from tests.bots.conftest import create_table, new_agent
from tests.support.services import ServiceProcess
from tests.tournament.conftest import definition as tournament_definition

FAST = Retry(attempts=8, base=0.05, cap=0.5)
T = TypeVar("T")


class LosingProxy:
    """127.0.0.1 in front of the gateway. `lose(b"POST ")` arms it: the next request starting
    with those bytes reaches the room, and its reply is read and thrown away while both
    connections close."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.armed: list[bytes] = []
        self.lost: list[bytes] = []  # the request lines whose replies were lost
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    def lose(self, prefix: bytes) -> None:
        self.armed.append(prefix)

    async def _pipe(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        room_r, room_w = await asyncio.open_connection(self.host, self.port)
        losing = asyncio.Event()

        async def upstream() -> None:
            while data := await client_r.read(65536):
                hit = next((p for p in self.armed if data.startswith(p)), None)
                if hit is not None:
                    self.armed.remove(hit)
                    self.lost.append(data.split(b"\r\n", 1)[0])
                    losing.set()
                room_w.write(data)
                await room_w.drain()

        async def downstream() -> None:
            while data := await room_r.read(65536):
                if losing.is_set():
                    return  # the room answered; the client never hears it
                client_w.write(data)
                await client_w.drain()

        tasks = [asyncio.create_task(upstream()), asyncio.create_task(downstream())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for writer in (client_w, room_w):
                writer.close()

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            await self._pipe(client_r, client_w)
        except (ConnectionError, asyncio.CancelledError):
            pass

    @asynccontextmanager
    async def running(self) -> AsyncIterator["LosingProxy"]:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        try:
            yield self
        finally:
            self.server.close()


@pytest.fixture
async def proxy(room) -> AsyncIterator[LosingProxy]:
    async with LosingProxy(room.url).running() as running:
        yield running


class Proxied(FeltClient):
    """A client talking through the proxy that records whether each POST's answer was a replay."""

    def __init__(self, proxy: LosingProxy, credential: str | None) -> None:
        super().__init__(proxy.url, api_key=credential, retry=FAST, event_hooks={"response": [self._record]})
        self.replays: list[bool] = []

    async def _record(self, response: httpx.Response) -> None:
        if response.request.method == "POST":
            self.replays.append(response.headers.get("idempotent-replayed") == "true")


def through(proxy: LosingProxy, client: FeltClient) -> Proxied:
    """The same credentials, talking through the proxy."""
    return Proxied(proxy, client.credential)


async def once_lost(proxy: LosingProxy, client: Proxied, call: Callable[[], Awaitable[T]], replayed: bool = True) -> T:
    """`call` with its first reply lost: it succeeds on a retry that the room answered from the
    first outcome (`Idempotent-Replayed`). `replayed=False`: the record is the table's or the chat
    service's own, under the key (no header says so); the caller checks the state instead."""
    before = len(proxy.lost)
    proxy.lose(b"POST ")
    result = await call()
    assert len(proxy.lost) == before + 1, "the first reply was lost"
    if replayed:
        assert client.replays[-1], "the retry got the first outcome, not a second application"
    return result


async def test_every_retried_post_applies_once_when_its_reply_is_lost(room, bus, proxy) -> None:
    owner_direct, _ = await new_agent(room)
    owner = through(proxy, owner_direct)

    _, agent_direct = await new_agent(room, "lost-reply")
    agent = through(proxy, agent_direct)

    other_owner, other_direct = await new_agent(room)
    other = through(proxy, other_direct)
    table_id = await create_table(bus)
    await once_lost(proxy, agent, lambda: agent.join(table_id, buy_in=100), replayed=False)
    assert (await agent.balance()).reserves == {table_id: 100}, "bought in once"
    await other.join(table_id, buy_in=100)
    await once_lost(proxy, agent, lambda: agent.say(table_id, "hello once"), replayed=False)
    assert [m["text"] for m in await agent.chat(table_id)] == ["hello once"]

    with pytest.raises(ApiError):
        await agent.start(table_id)  # ready; not enough ready yet
    await once_lost(proxy, other, lambda: other.start(table_id), replayed=False)
    kinds = [e["kind"] for e in (await agent.poll(table_id)).events]
    assert kinds.count("hand_start") == 1, "started once"

    table = await agent.table(table_id)
    actor, waiter = (agent, other) if table["hand"]["actorSeatId"] == table["yourSeatId"] else (other, agent)
    await once_lost(proxy, waiter, lambda: waiter.preaction(table_id, "check_fold"), replayed=False)
    assert (await waiter.table(table_id))["hand"]["preaction"] == "check_fold"
    await once_lost(proxy, waiter, lambda: waiter.auto_rebuy(table_id, False))
    hand = (await actor.table(table_id))["hand"]
    await once_lost(
        proxy, actor, lambda: actor.act(table_id, {"type": "call"}, hand_id=hand["handId"], turn_id=hand["turnId"])
    )
    calls = [e for e in (await agent.poll(table_id)).events if e["kind"] == "call"]
    assert len(calls) == 1, "acted once"

    await once_lost(proxy, other, lambda: other.sit_out(table_id))
    await once_lost(proxy, other, lambda: other.sit_in(table_id))
    await once_lost(proxy, agent, lambda: agent.leave(table_id), replayed=False)
    me = (await agent.me())["participantId"]
    mine = [e["kind"] for e in (await other.poll(table_id)).events if e.get("participantId") == me]
    assert mine.count("leaving") <= 1 and mine.count("left") <= 1, "left once"

    for client in (owner, agent, agent_direct, other, owner_direct, other_owner, other_direct):
        await client.aclose()


async def test_a_post_without_a_key_is_not_sent_twice_after_a_lost_reply(room, proxy) -> None:
    """Sign-up and agent creation take no key: a lost reply is reported, not retried blindly."""
    client = FeltClient(proxy.url, retry=FAST)
    email = f"o{uuid.uuid4().hex[:12]}@example.org"
    proxy.lose(b"POST ")
    with pytest.raises(ApiError) as lost:
        await client.sign_up(email, "correct horse battery")
    assert lost.value.code == "unavailable" and len(proxy.lost) == 1
    with pytest.raises(ApiError) as taken:
        await client.sign_up(email, "correct horse battery")
    assert taken.value.status == 409, "the first try had signed up: a silent second try would have hidden that"
    await client.aclose()

    owner_direct, _ = await new_agent(room)
    owner = through(proxy, owner_direct)
    proxy.lose(b"POST ")
    with pytest.raises(ApiError) as lost_agent:
        await owner.create_agent("made-once")
    assert lost_agent.value.code == "unavailable"
    made = [p for p in (await owner.me())["participants"] if p["name"] == "made-once"]
    assert len(made) == 1, "created once, and not created again behind the caller's back"
    for each in (owner, owner_direct):
        await each.aclose()


async def test_events_resume_after_the_last_event_when_a_long_polls_reply_is_lost(room, bus, proxy) -> None:
    owner, direct = await new_agent(room)
    _, other = await new_agent(room)
    table_id = await create_table(bus)
    agent = through(proxy, direct)
    seqs: list[int] = []

    async def read() -> None:
        async for event in agent.events(table_id, wait=5):
            seqs.append(event.seq)
            if len(seqs) >= 3:
                return

    reading = asyncio.create_task(read())
    await asyncio.sleep(0.3)  # the first long-poll waits at the room
    proxy.lose(b"GET /api/v2/poker/tables/")
    await direct.join(table_id, buy_in=100)  # answers the waiting poll, whose reply is lost
    await other.join(table_id, buy_in=100)
    with pytest.raises(ApiError):
        await direct.start(table_id)
    await asyncio.wait_for(reading, 30)
    assert any(b"/events" in line for line in proxy.lost), "a long-poll's reply was lost"
    assert seqs == list(range(seqs[0], seqs[0] + 3)) and seqs[0] == 1, "none skipped, none twice"
    for client in (owner, direct, other, agent):
        await client.aclose()


async def test_a_hosts_retried_posts_apply_once_when_their_replies_are_lost(room, bus, proxy) -> None:
    """Creating a table and a host control, each with its first reply lost: one table, one pause
    announced. A new invite code is not sent again (the room keeps only its hash, so a retry could
    not answer it): its lost reply is reported, and asking again gives a code that opens the table."""
    _, host_direct = await new_agent(room, "host")
    host = through(proxy, host_direct)
    _, guest = await new_agent(room, "guest")

    created = await once_lost(
        proxy, host, lambda: host.create_table("nlhe-1", name="lost", visibility="private", seats=2), replayed=True
    )
    table_id = created["table"]["tableId"]
    assert table_id not in [t["tableId"] for t in await host_direct.tables()], "a private table is not listed"
    proxy.lose(b"POST ")
    with pytest.raises(ApiError) as lost:
        await host.new_invite(table_id)
    assert lost.value.code == "unavailable"
    code = (await host.new_invite(table_id))["inviteCode"]
    assert (await guest.invited(code))["tableId"] == table_id
    assert (await guest.join(table_id, buy_in=100, invite_code=code)).status == "seated"

    await once_lost(proxy, host, lambda: host.host(table_id, "pause"), replayed=False)
    kinds = [e["kind"] for e in (await guest.poll(table_id)).events]
    assert kinds.count("table_paused") == 1, kinds
    for client in (host, host_direct, guest):
        await client.aclose()


@pytest.fixture(scope="module")
def tournament_service(room) -> Iterator[ServiceProcess]:
    proc = room.runner.start("tournament", database_url=room.database_url, ready=False)
    proc.wait_ready(timeout=90)
    yield proc
    proc.stop()


async def test_a_registration_and_a_match_apply_once_when_their_replies_are_lost(
    room, bus, proxy, tournament_service, bots_service
) -> None:
    """A tournament registration and a benchmark match, each with its first reply lost: the
    buy-in moves once, one entry; one match (the owner's daily cap of two counts it once)."""
    _, direct = await new_agent(room, "lost-entry")
    agent = through(proxy, direct)
    definition = tournament_definition(min_entrants=2, max_entrants=6)
    await call(bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=definition), TournamentView)
    before = (await direct.balance()).available
    await once_lost(proxy, agent, lambda: agent.register(definition.tournament_id), replayed=False)
    assert (await direct.balance()).available == before - definition.buy_in, "the buy-in moved once"
    seen = await direct.tournament(definition.tournament_id)
    assert seen["entrants"] == 1, seen

    match = await once_lost(proxy, agent, lambda: agent.start_match("easy", 2), replayed=False)
    assert (await direct.match(match["matchId"]))["matchId"] == match["matchId"]
    await direct.start_match("easy", 2)  # the owner's second match of the day (the room allows two)
    with pytest.raises(ApiError) as third:
        await direct.start_match("easy", 2)
    assert third.value.code == "limit_exceeded", "the lost reply's retry did not make a second match"
    for client in (agent, direct):
        await client.aclose()


async def test_a_voluntary_show_applies_once_when_its_reply_is_lost(room, bus, proxy) -> None:
    """The winner of a hand everyone else folded shows once, though the first reply was lost."""
    _, first = await new_agent(room)
    _, second = await new_agent(room)
    table_id = await create_table(bus)
    for client in (first, second):
        await client.join(table_id, buy_in=100)
    with pytest.raises(ApiError):
        await first.start(table_id)  # ready; not enough ready yet
    await second.start(table_id)
    hand = (await first.table(table_id))["hand"]
    mine = (await first.table(table_id))["yourSeatId"]
    folder, winner = (first, second) if hand["actorSeatId"] == mine else (second, first)
    await folder.act(table_id, {"type": "fold"}, hand_id=hand["handId"], turn_id=hand["turnId"])
    shower = through(proxy, winner)
    await once_lost(proxy, shower, lambda: shower.show(table_id, hand["handId"]), replayed=False)
    shows = [e for e in (await folder.poll(table_id)).events if e["kind"] == "show"]
    assert len(shows) == 1, shows
    for client in (first, second, shower):
        await client.aclose()
