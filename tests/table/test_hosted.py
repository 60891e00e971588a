"""Tables players host (docs/rules.md "Hosting a table"), at the table service: the definition
(settings, host, invite hash, pause, removed players, requests to sit) survives a kill -9 of
the service with the interrupted hand refunded exactly once; hosted tables limited by time or
hands close with every seat cashed out once; a hosted table nobody sits at closes by itself;
an owner hosts a bounded number of open tables; a held table deals one hand per go of its host."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from felt_contracts import subjects
from felt_contracts.table import (
    Act,
    CreateTable,
    GetEvents,
    GetView,
    Host,
    Join,
    ListTables,
    Ready,
    Start,
    TableConfig,
    TableList,
    TableSummary,
    Visibility,
    invite_hash,
)
from felt_contracts.wallet import SessionHistory, SessionsQuery
from felt_runtime.bus import BusError, call
from felt_runtime.db import create_engine
from felt_wallet.settings import WalletSettings
from tests.table.conftest import balance, cmd, player, start_stack, uid
from tests.wallet.conftest import check_invariants

pytestmark = pytest.mark.timeout(180)

CODE = "a-private-code"


async def hosted(bus: Any, host: str, owner: str, *, private: bool = True, **cfg: Any) -> str:
    """A table `host` created (nlhe-1 1/2, buy-in 20..100), private with the invite CODE."""
    table_id = uid("h")
    config = TableConfig(
        table_id=table_id,
        **{
            **dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=100, seats=6),
            **cfg,
        },
        host_id=host,
        host_owner=owner,
        visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
    )
    create = CreateTable(config=config, invite_hash=invite_hash(CODE) if private else None)
    await call(bus, subjects.TABLE_CREATE, create, TableSummary)
    return table_id


async def host_does(bus: Any, t: str, host: str, control: str, **fields: Any) -> str:
    return (await cmd(bus, t, Host(participant_id=host, control=control, **fields))).status


async def join(bus: Any, t: str, pid: str, owner: str, code: str | None = CODE, buy_in: int = 100) -> str:
    joined = Join(
        participant_id=pid, owner_id=owner, kind="agent", buy_in=buy_in, invite_hash=invite_hash(code) if code else None
    )
    return (await cmd(bus, t, joined)).status


async def view(bus: Any, t: str, viewer: str):
    return (await cmd(bus, t, GetView(viewer=viewer))).view


async def deal(bus: Any, t: str, pids: list[str]):
    for p in pids:
        await cmd(bus, t, Ready(participant_id=p))
    assert (await cmd(bus, t, Start(participant_id=pids[0]))).status == "started"
    return await view(bus, t, pids[0])


async def finish_hand(bus: Any, t: str, viewer: str) -> None:
    for _ in range(100):
        v = await view(bus, t, viewer)
        if v.hand.phase == "over":
            return
        who = next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)
        legal = (await view(bus, t, who)).hand.legal_actions
        await cmd(bus, t, Act(participant_id=who, action="check" if legal.check else "call"))
    raise AssertionError("the hand did not end")


async def wait_closed(bus: Any, t: str, viewer: str) -> None:
    for _ in range(100):
        if (await view(bus, t, viewer)).closed:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the table did not close")


async def kinds(bus: Any, t: str, viewer: str, after: int = 0) -> list[Any]:
    return list((await cmd(bus, t, GetEvents(after_seq=after, viewer=viewer))).events)


async def by_invite(bus: Any, code: str) -> list[str]:
    found = await call(bus, subjects.TABLE_LIST, ListTables(invite_hash=invite_hash(code)), TableList)
    return [s.config.table_id for s in found.tables]


@pytest.fixture
def own_stack(services, database_url):
    """A stack of this test's own (it kills the table service)."""
    return start_stack(services, database_url)


@pytest.fixture
def idle_stack(services, database_url):
    """Hosted tables nobody sits at close after 3 s; an owner hosts two open tables at most."""
    return start_stack(services, database_url, felt_table_idle_close_seconds="3", felt_table_max_hosted_tables="2")


async def test_kill9_with_a_private_table_paused_mid_hand_keeps_its_definition_and_refunds_once(
    own_stack, bus, database_url
):
    procs = own_stack
    host, owner = await player(bus)
    guest, guest_owner = await player(bus)
    t = await hosted(bus, host, owner, approval=False)
    await join(bus, t, host, owner, code=None)  # the host needs no invite
    await join(bus, t, guest, guest_owner)
    v = await deal(bus, t, [host, guest])
    assert v.hand.phase != "over"
    assert await host_does(bus, t, host, "pause") == "next_hand"
    assert await host_does(bus, t, host, "blinds", small_blind=2, big_blind=4) == "next_hand"
    before = (await view(bus, t, host)).config
    procs["table"].kill9()
    procs["table"].start()
    procs["table"].wait_ready()
    for _ in range(2):  # and a clean restart after it changes nothing
        after = await view(bus, t, host)
        assert after.config == before.model_copy(
            update={"small_blind": 2, "big_blind": 4, "min_buy_in": 40, "max_buy_in": 200}
        )
        assert after.config.host_id == host and after.config.visibility is Visibility.PRIVATE
        assert after.paused == "paused by the host" and after.host is not None and after.host.paused
        assert after.seats == () and after.hand is None
        assert await by_invite(bus, CODE) == [t]  # the same invite code opens it
        with pytest.raises(BusError) as refused:  # and nothing else does
            await cmd(bus, t, GetView(viewer=uid("p")))
        assert refused.value.code == "not_found"
        for p in (host, guest):
            b = await balance(bus, p)
            assert (b.available, b.reserved, b.in_play) == (WalletSettings().grant, 0, 0), b
        procs["table"].restart()
    resets = [e.amount for e in await kinds(bus, t, host) if e.kind == "table_reset"]
    assert resets == [0, 0, 0, 0]  # a buy-in table escrows nothing mid-hand: the reserves were the refund
    assert (await view(bus, t, host)).paused == "paused by the host"
    engine = create_engine(database_url)
    try:
        await check_invariants(engine)  # the ledger sums to zero, nothing negative, no escrow left
    finally:
        await engine.dispose()
    # the definition's other parts survive too: a removed player
    await host_does(bus, t, host, "resume")
    await join(bus, t, guest, guest_owner)
    assert await host_does(bus, t, host, "remove", participant=guest) == "now"
    procs["table"].restart()
    with pytest.raises(BusError) as refused:
        await join(bus, t, guest, guest_owner)
    assert refused.value.code == "forbidden" and refused.value.details["reason"] == "removed"
    assert (await view(bus, t, host)).host.removed == (guest, guest_owner)


async def test_an_idle_hosted_table_closes_by_itself_and_the_owner_bound_counts_open_tables(idle_stack, bus):
    host, owner = await player(bus)
    first = await hosted(bus, host, owner, private=False)
    await hosted(bus, host, owner, private=False)
    with pytest.raises(BusError) as refused:  # two open tables at most (the setting)
        await hosted(bus, host, owner, private=False)
    assert refused.value.code == "too_many_tables" and refused.value.details["limit"] == 2
    guest, guest_owner = await player(bus)
    await join(bus, first, guest, guest_owner, code=None)
    await asyncio.sleep(4)  # past the idle time: the table someone sits at stays open
    assert not (await view(bus, first, host)).closed
    closed = await call(bus, subjects.TABLE_LIST, ListTables(host_id=host), TableList)
    assert [s.config.table_id for s in closed.tables] == [first]  # the other closed, idle
    await hosted(bus, host, owner, private=False)  # so the owner may open another


async def test_a_time_limited_hosted_table_closes_on_time_with_every_seat_cashed_out_once(own_stack, bus):
    host, owner = await player(bus)
    guest, guest_owner = await player(bus)
    t = await hosted(bus, host, owner, closes_at=datetime.now(UTC) + timedelta(seconds=2))
    await join(bus, t, host, owner, code=None, buy_in=60)
    await join(bus, t, guest, guest_owner, buy_in=80)
    v = await deal(bus, t, [host, guest])
    assert v.closes_at is not None
    await asyncio.sleep(2.2)  # past the time with the hand running: it plays to its end
    await finish_hand(bus, t, host)
    await wait_closed(bus, t, host)
    events = await kinds(bus, t, host)
    outs = [e.participant_id for e in events if e.kind == "left" and e.detail == "table_closed"]
    assert sorted(outs) == sorted([host, guest])  # every seat, exactly once
    assert [e.detail for e in events if e.kind == "table_closed"] == ["closes_at"]
    total = 0
    for p in (host, guest):
        b = await balance(bus, p)
        assert (b.reserved, b.in_play) == (0, 0)
        total += b.available
    assert total == 2 * WalletSettings().grant


async def test_a_hand_limited_hosted_table_closes_after_hand_n_and_the_sessions_show_the_net(own_stack, bus):
    host, owner = await player(bus)
    guest, guest_owner = await player(bus)
    t = await hosted(bus, host, owner, max_hands=2)
    await join(bus, t, host, owner, code=None)
    await join(bus, t, guest, guest_owner)
    assert (await view(bus, t, host)).hands_left == 2
    await deal(bus, t, [host, guest])
    await finish_hand(bus, t, host)
    assert (await view(bus, t, host)).hands_left == 1
    await deal(bus, t, [host, guest])
    await finish_hand(bus, t, host)
    await wait_closed(bus, t, host)
    v = await view(bus, t, host)
    assert v.closed and v.hands_left == 0 and v.seats == ()
    nets = 0
    for p in (host, guest):
        history = await call(bus, subjects.WALLET_SESSIONS, SessionsQuery(account_id=p), SessionHistory)
        mine = [s for s in history.sessions if s.table_id == t]
        assert len(mine) == 1 and mine[0].closed_at is not None, mine
        b = await balance(bus, p)
        assert b.available == WalletSettings().grant + mine[0].net
        nets += mine[0].net
    assert nets == 0


async def hands_started(bus: Any, t: str, viewer: str) -> int:
    return sum(1 for e in await kinds(bus, t, viewer) if e.kind == "hand_start")


async def wait_dealt(bus: Any, t: str, viewer: str, n: int) -> None:
    for _ in range(200):
        if await hands_started(bus, t, viewer) >= n:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"hand {n} was not dealt")


async def test_a_held_table_deals_no_hand_until_its_go_and_one_hand_per_go(own_stack, bus):
    host, owner = await player(bus)  # the host does not sit, as a tournament does not
    t = await hosted(bus, host, owner, private=False, start_mode="auto", intermission_seconds=0.5)
    with pytest.raises(BusError) as refused:
        await host_does(bus, t, host, "go")
    assert refused.value.code == "conflict" and refused.value.details["reason"] == "not_held"
    for p, o in [await player(bus), await player(bus)]:
        await join(bus, t, p, o, code=None)
    await wait_dealt(bus, t, host, 1)
    assert await host_does(bus, t, host, "hold") == "next_hand"  # the hand in progress plays on
    await finish_hand(bus, t, host)
    for hand in (2, 3):
        await asyncio.sleep(1.5)  # three intermissions: nothing is dealt
        v = await view(bus, t, host)
        assert (await hands_started(bus, t, host), v.paused) == (hand - 1, "held by the host")
        assert await host_does(bus, t, host, "go") == "now"
        assert await host_does(bus, t, host, "go") == "now"  # a second go before the deal adds no hand
        await wait_dealt(bus, t, host, hand)
        await finish_hand(bus, t, host)
    assert await host_does(bus, t, host, "go") == "now"
    await wait_dealt(bus, t, host, 4)
    assert await host_does(bus, t, host, "go") == "next_hand"  # sent while a hand runs: the hand after it
    await finish_hand(bus, t, host)
    await wait_dealt(bus, t, host, 5)
    await finish_hand(bus, t, host)
    await asyncio.sleep(1.5)
    assert await hands_started(bus, t, host) == 5
    events = [e.kind for e in await kinds(bus, t, host) if e.kind in ("table_held", "table_go")]
    assert events == ["table_held"] + ["table_go"] * 4
