"""Limits at real tables (real NATS, Redis, wallet, limits, timer, table): every cap binds where
the table takes risk, each at its boundary (at the cap allowed, one chip or hand over refused).

Counters follow the wallet's events (JetStream), so each test waits until limits has counted what
happened before it asks for the next risk: limits is a pre-risk gate, not a reservation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from felt_contracts import subjects
from felt_contracts.limits import (
    CapChange,
    FreezeState,
    LimitName,
    LimitsFreeze,
    LimitsGet,
    LimitsSetCap,
    LimitsState,
    Scope,
)
from felt_contracts.table import Act, GetView, Join, Ready, Start
from felt_runtime.bus import BusError, call
from felt_wallet.settings import WalletSettings
from tests.table.conftest import balance, cmd, create_table, player
from tests.table.test_absent import all_in_until_busted
from tests.table.test_player_options import actor_pid, deal, events, seat, wait_for

L = LimitName


async def set_cap(bus: Any, scope_id: str, limit: LimitName, cap: int, scope: Scope = Scope.OWNER) -> None:
    """Lower a cap (lowering applies at once)."""
    change = await call(
        bus, subjects.LIMITS_SET_CAP, LimitsSetCap(scope=scope, scope_id=scope_id, limit=limit, cap=cap), CapChange
    )
    assert change.applied


# tests.table.conftest.player gives participant `p` the owner `o-{p}`


async def used(bus: Any, owner: str, limit: LimitName, want: int, timeout: float = 10.0) -> None:
    """Wait until limits has counted `want` against the owner's `limit`."""
    got = None
    for _ in range(int(timeout / 0.05)):
        got = (await call(bus, subjects.LIMITS_GET, LimitsGet(owner_id=owner), LimitsState)).owner.limits[limit].used
        if got == want:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{limit.value} used {got}, expected {want}")


async def test_a_busted_session_releases_its_reserved_exposure(stack, bus):
    t = await create_table(bus)
    pids = await seat(bus, t, [20, 20])
    for p in pids:  # at the cap: each owner's whole exposure is this table
        await set_cap(bus, f"o-{p}", L.RESERVED_EXPOSURE, 20)
        await used(bus, f"o-{p}", L.RESERVED_EXPOSURE, 20)
    loser = await all_in_until_busted(bus, t, pids, tries=6)
    assert (await balance(bus, loser)).reserved == 0
    await used(bus, f"o-{loser}", L.RESERVED_EXPOSURE, 0)  # no cash-out transfer, yet the session ended
    other = await create_table(bus)  # so the same owner may buy in again up to the cap
    assert (
        await cmd(bus, other, Join(participant_id=loser, owner_id=f"o-{loser}", kind="agent", buy_in=20))
    ).status == "seated"


async def test_daily_wager_cap_binds_at_a_buy_in_table(stack, bus):
    """At a buy-in table limits grants each seat its allowance at the deal (docs/limits.md): the
    legal actions show it, a commitment past it is refused as a wager cap refuses, and the next
    hand's allowance is what the settled hand left."""
    t = await create_table(bus)
    pids = await seat(bus, t, [100, 100])
    capped = pids[0]
    owner = f"o-{capped}"
    await set_cap(bus, owner, L.DAILY_WAGER, 30)
    v = await deal(bus, t, pids)
    if actor_pid(v) != capped:  # heads-up: the big blind acts second preflop
        await cmd(bus, t, Act(participant_id=actor_pid(v), action="call"))
    before = (await cmd(bus, t, GetView(viewer=capped))).view
    legal = before.hand.legal_actions
    assert legal.raise_to is not None and legal.raise_to.max == 30 and legal.all_in is None  # the bound, not the stack
    with pytest.raises(BusError) as e:  # 31 in the hand: one chip over the day's cap
        await cmd(bus, t, Act(participant_id=capped, action="raiseTo", amount=31))
    assert e.value.code == "limit_exceeded" and e.value.details["reason"] == "over_allowance"
    after = (await cmd(bus, t, GetView(viewer=capped))).view
    assert after.seq == before.seq and after.hand == before.hand  # nothing changed
    await cmd(bus, t, Act(participant_id=capped, action="raiseTo", amount=10))
    other = next(p for p in pids if p != capped)
    await cmd(bus, t, Act(participant_id=other, action="fold"))
    await used(bus, owner, L.DAILY_WAGER, 10)  # the settlement reported the wager
    v = await deal(bus, t, pids)  # the next hand: 20 left of the day's 30
    if actor_pid(v) != capped:
        await cmd(bus, t, Act(participant_id=actor_pid(v), action="call"))
    legal = (await cmd(bus, t, GetView(viewer=capped))).view.hand.legal_actions
    assert legal.raise_to is not None and legal.raise_to.max == 20
    await cmd(bus, t, Act(participant_id=capped, action="raiseTo", amount=20))
    await cmd(bus, t, Act(participant_id=other, action="fold"))
    await used(bus, owner, L.DAILY_WAGER, 30)
    seq = (await cmd(bus, t, GetView())).view.seq
    for p in pids:  # the next hand's blind would be over the cap: the session closes before the deal
        await cmd(bus, t, Ready(participant_id=p))
    with pytest.raises(BusError):
        await cmd(bus, t, Start(participant_id=other))
    closed, _ = await wait_for(bus, t, seq, "session_closed", detail="limit")
    assert closed.participant_id == capped
    assert (await balance(bus, capped)).reserved == 0


async def test_a_cap_lowered_while_a_hand_runs_binds_from_the_next_hand_and_a_freeze_stops_the_next_hand(stack, bus):
    t = await create_table(bus)
    pids = await seat(bus, t, [100, 100])
    capped, other = pids
    owner = f"o-{capped}"
    v = await deal(bus, t, pids)
    await set_cap(bus, owner, L.DAILY_WAGER, 12)  # lowered mid-hand: this hand keeps its grant
    if actor_pid(v) != capped:
        await cmd(bus, t, Act(participant_id=actor_pid(v), action="call"))
    legal = (await cmd(bus, t, GetView(viewer=capped))).view.hand.legal_actions
    assert legal.all_in == 100 - next(s.bet for s in v.hand.seats if s.participant_id == capped)
    await cmd(bus, t, Act(participant_id=capped, action="raiseTo", amount=6))
    await cmd(bus, t, Act(participant_id=other, action="fold"))
    await used(bus, owner, L.DAILY_WAGER, 6)
    v = await deal(bus, t, pids)  # from the next hand the lowered cap binds: 6 left
    if actor_pid(v) != capped:
        await cmd(bus, t, Act(participant_id=actor_pid(v), action="call"))
    legal = (await cmd(bus, t, GetView(viewer=capped))).view.hand.legal_actions
    assert legal.raise_to is not None and legal.raise_to.max == 6 and legal.all_in is None
    await call(bus, subjects.LIMITS_FREEZE, LimitsFreeze(scope_id=owner, reason="a break"), FreezeState)
    seq = (await cmd(bus, t, GetView())).view.seq
    await cmd(bus, t, Act(participant_id=capped, action="fold"))  # the running hand plays to its end
    closed, _ = await wait_for(bus, t, seq, "session_closed", detail="limit")  # and no next one: cashed out
    assert closed.participant_id == capped
    assert (await balance(bus, capped)).reserved == 0


async def test_auto_rebuy_top_ups_count_against_the_buy_in_caps(stack, bus):
    grant = WalletSettings().grant
    t = await create_table(bus, auto_rebuy=True)
    pids = await seat(bus, t, [50, 50], auto_rebuy=True)
    at_cap, over = pids
    await set_cap(bus, f"o-{at_cap}", L.DAILY_BUY_IN, 100)  # the 50 top-up reaches the cap: allowed
    await set_cap(bus, f"o-{over}", L.DAILY_BUY_IN, 99)  # one chip short: refused
    for p in pids:
        await used(bus, f"o-{p}", L.DAILY_BUY_IN, 50)
    seq = (await cmd(bus, t, GetView())).view.seq
    await deal(bus, t, pids)  # tops up to the table maximum (100) before the deal
    rebuys = [e.participant_id for e in await events(bus, t, seq) if e.kind == "rebuy"]
    assert rebuys == [at_cap]
    assert (await balance(bus, at_cap)).available == grant - 100
    assert (await balance(bus, over)).available == grant - 50


async def test_session_hand_cap_binds_at_ante_nl_1(stack, bus):
    t = await create_table(bus, rules_version="ante-nl-1", intermission_seconds=0.5)
    capped, owner = await player(bus)
    await set_cap(bus, owner, L.SESSION_HANDS, 1)
    seq = (await cmd(bus, t, GetView())).view.seq
    await cmd(bus, t, Join(participant_id=capped, owner_id=owner, kind="agent"))
    for _ in range(2):
        pid, o = await player(bus)
        await cmd(bus, t, Join(participant_id=pid, owner_id=o, kind="agent"))
    dealt_to: list[str] = []
    for _ in range(400):  # play hands by checking/calling until the capped seat is gone
        v = (await cmd(bus, t, GetView())).view
        if capped not in [s.participant_id for s in v.seats]:
            break
        h = v.hand
        if h is not None and h.phase != "over":
            if h.hand_id not in dealt_to and capped in [s.participant_id for s in h.seats]:
                dealt_to.append(h.hand_id)
            try:
                await cmd(bus, t, Act(participant_id=actor_pid(v), action="hit"))
            except BusError:
                pass  # the turn moved on meanwhile
        else:
            await asyncio.sleep(0.05)
    else:
        raise AssertionError("the capped seat was never closed")
    closed = [e for e in await events(bus, t, seq) if e.kind == "session_closed" and e.participant_id == capped]
    assert closed and closed[0].detail == "limit"
    assert len(dealt_to) == 1  # at the cap (one hand) allowed, the second refused


async def test_the_credential_a_seat_acts_with_has_its_policy_applied(stack, bus):
    t = await create_table(bus)
    a, oa = await player(bus)
    b, ob = await player(bus)
    await cmd(bus, t, Join(participant_id=b, owner_id=ob, kind="agent", buy_in=50))
    key = f"key-{a}"
    await set_cap(bus, key, L.DAILY_BUY_IN, 49, scope=Scope.CREDENTIAL)
    with pytest.raises(BusError) as e:  # one chip over the credential's cap
        await cmd(bus, t, Join(participant_id=a, owner_id=oa, kind="agent", buy_in=50, credential_id=key))
    assert e.value.code == "limit_exceeded" and e.value.details["scope"] == "credential"
    await cmd(bus, t, Join(participant_id=a, owner_id=oa, kind="agent", buy_in=49, credential_id=key))  # at the cap
    await call(
        bus, subjects.LIMITS_FREEZE, LimitsFreeze(scope=Scope.CREDENTIAL, scope_id=key, reason="test"), FreezeState
    )
    seq = (await cmd(bus, t, GetView())).view.seq
    await cmd(bus, t, Ready(participant_id=a, credential_id=key))
    await cmd(bus, t, Ready(participant_id=b))
    with pytest.raises(BusError):  # the frozen credential's seat is not dealt in
        await cmd(bus, t, Start(participant_id=b))
    closed, _ = await wait_for(bus, t, seq, "session_closed", detail="limit")
    assert closed.participant_id == a
