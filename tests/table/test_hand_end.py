"""Money across wallet failures: the end of a hand is a durable intent of the table
(docs/architecture.md, "Money and failure rules").

The wallet is killed (-9), stopped (SIGSTOP) past the table's call timeout, or loses its reply
(a real TCP proxy holds what it sends) just before the action that ends a hand: the hand is
settled exactly once with the table's winners, its escrow is empty and the stacks equal the
wallet's reserves. A table restarted while an end is unanswered settles it before its restart
policy cancels what is open. Runs on SQLite and PostgreSQL (one stack per database)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, GetEvents, GetHand, Start
from felt_contracts.wallet import CashOut, CashOutResult
from felt_runtime.bus import BusError, call
from tests.support.pausing import paused
from tests.support.waiting import eventually
from tests.table.conftest import CALL_TIMEOUT, balance, cmd, create_table
from tests.table.money import (
    actor_of,
    assert_settled_once,
    assert_stacks_are_reserves,
    in_thread,
    passive,
    seat_players,
    settle_of,
    view,
)
from tests.wallet.conftest import check_invariants


async def to_river_last_action(bus: Any, t: str) -> None:
    """Play passively until the next action (a check on the river) ends the hand at a showdown."""
    while (await view(bus, t)).hand.street != "river":
        await passive(bus, t)
    await passive(bus, t)  # the first river check


async def started(bus: Any) -> tuple[str, list[str], str]:
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await cmd(bus, t, Start(participant_id=pids[0]))
    return t, pids, (await view(bus, t)).hand.hand_id


async def fold_win(bus: Any, t: str) -> None:
    await cmd(bus, t, Act(participant_id=actor_of(await view(bus, t)), action="fold"))


async def showdown(bus: Any, t: str) -> None:
    await passive(bus, t)


async def resumed(bus: Any, t: str) -> None:
    await eventually(lambda: _not_paused(bus, t))


async def _not_paused(bus: Any, t: str) -> bool:
    return (await view(bus, t)).paused is None


async def after(bus: Any, engine: Any, t: str, hand_id: str) -> None:
    await resumed(bus, t)
    await assert_settled_once(bus, engine, t, hand_id)
    await assert_stacks_are_reserves(bus, t)
    await check_invariants(engine)


@pytest.mark.parametrize("ending", [showdown, fold_win], ids=["showdown", "fold_win"])
async def test_wallet_kill9_before_the_ending_action_settles_the_hand_once(money_stack, bus, ledger_db, ending):
    t, pids, hand_id = await started(bus)
    if ending is showdown:
        await to_river_last_action(bus, t)
    money_stack["wallet"].kill9()
    await ending(bus, t)  # accepted: the end is recorded and waits for the wallet
    v = await view(bus, t)
    assert v.paused == "waiting for the wallet" and v.hand.phase == "over"
    with pytest.raises(BusError) as refused:  # no new hand before the end is acknowledged
        await cmd(bus, t, Start(participant_id=pids[0]))
    assert refused.value.code is ErrorCode.UNAVAILABLE and refused.value.details["reason"] == "paused"
    await asyncio.sleep(2)
    money_stack["wallet"].start()
    await in_thread(money_stack["wallet"].wait_ready)
    await after(bus, ledger_db, t, hand_id)
    kinds = [e.kind for e in (await cmd(bus, t, GetEvents(after_seq=0))).events]
    assert kinds.count("paused") == kinds.count("resumed") == 1 and "hand_cancelled" not in kinds


async def test_wallet_stopped_past_the_call_timeout_settles_the_hand_once(money_stack, bus, ledger_db):
    t, _, hand_id = await started(bus)
    await to_river_last_action(bus, t)
    with paused(money_stack["wallet"].process):
        await showdown(bus, t)  # the settle gets no answer within the call timeout
        assert (await view(bus, t)).paused == "waiting for the wallet"
        await asyncio.sleep(CALL_TIMEOUT * 2)  # retries pile up at the stopped wallet
    await after(bus, ledger_db, t, hand_id)


async def test_a_lost_settle_reply_is_resent_and_settles_once(money_stack, bus, ledger_db):
    """The wallet applies the settlement; its reply is held by the proxy (the table hears
    nothing and keeps resending the same request); once replies flow the table resumes."""
    t, _, hand_id = await started(bus)
    await to_river_last_action(bus, t)
    money_stack.proxy.hold_replies_after(subjects.WALLET_SETTLE.encode())
    try:
        await showdown(bus, t)
        assert await in_thread_wait(money_stack.proxy.passed, 5)
        await eventually(lambda: _wallet_settled(ledger_db, hand_id))  # applied at the wallet ...
        assert (await view(bus, t)).paused == "waiting for the wallet"  # ... unheard at the table
        await asyncio.sleep(CALL_TIMEOUT * 2)
        assert (await view(bus, t)).paused == "waiting for the wallet"
    finally:
        money_stack.proxy.thaw()
    await after(bus, ledger_db, t, hand_id)


async def in_thread_wait(event: Any, timeout: float) -> bool:
    return await asyncio.get_running_loop().run_in_executor(None, event.wait, timeout)


async def _wallet_settled(engine: Any, hand_id: str) -> bool:
    return (await settle_of(engine, hand_id))["status"] == "settled"


async def test_a_table_restarted_with_an_unanswered_end_settles_it_before_cancelling(money_stack, bus, ledger_db):
    """Completed payouts remain paid: the recorded settle is replayed, not cancelled by the
    restart policy; the seats are cleared with the winnings in the accounts."""
    t, pids, hand_id = await started(bus)
    await to_river_last_action(bus, t)
    money_stack["wallet"].kill9()
    await showdown(bus, t)
    money_stack["table"].kill9()
    money_stack["wallet"].start()
    await in_thread(money_stack["wallet"].wait_ready)
    money_stack["table"].start()
    await in_thread(money_stack["table"].wait_ready)
    got = await settle_of(ledger_db, hand_id)
    assert got["status"] == "settled" and got["escrow"] == 0 and "refund" not in got["kinds"], got
    assert (await view(bus, t)).seats == ()
    h = (await cmd(bus, t, GetHand(hand_id=hand_id))).hand
    final = {h.summary.seats[seat]: chips for seat, chips in h.final_stacks.items()}
    for p in pids:  # 200 granted, 100 bought in, the hand's final stack cashed out at the reset
        b = await balance(bus, p)
        assert (b.available, b.reserved, b.in_play) == (100 + final[p], 0, 0), (p, b, final)
    assert sum(final.values()) == 200
    await check_invariants(ledger_db)


async def test_a_stack_that_differs_from_the_reserve_follows_the_ledger(money_stack, bus, ledger_db):
    """Behind the table's back 30 chips leave p0's reserve; after the wallet was away the table
    reconciles: the stack becomes the reserve, an error is logged, an event says so."""
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await call(bus, subjects.WALLET_CASH_OUT, CashOut(account_id=pids[0], table_id=t, amount=30), CashOutResult)
    log = money_stack["table"].log
    offset = log.stat().st_size
    money_stack["wallet"].kill9()
    await cmd(bus, t, Start(participant_id=pids[0]))  # a buy-in table's hand needs no wallet until its end
    await fold_win(bus, t)
    assert (await view(bus, t)).paused == "waiting for the wallet"
    money_stack["wallet"].start()
    await in_thread(money_stack["wallet"].wait_ready)
    await resumed(bus, t)
    await eventually(lambda: _reconciled(bus, t))
    await assert_stacks_are_reserves(bus, t)
    stacks = {s.participant_id: s.stack for s in (await view(bus, t)).seats}
    assert sum(stacks.values()) == 170 and stacks[pids[0]] in (69, 71), stacks
    ev = [e for e in (await cmd(bus, t, GetEvents(after_seq=0))).events if e.kind == "stack_reconciled"]
    assert [(e.participant_id, e.amount, e.detail) for e in ev] == [
        (pids[0], stacks[pids[0]], f"was {stacks[pids[0]] + 30}")
    ]
    lines = log.read_text()[offset:].splitlines()
    assert sum("stack differs from the wallet's reserve" in x and '"ERROR"' in x for x in lines) == 1, lines
    await check_invariants(ledger_db)
    await cmd(bus, t, Start(participant_id=pids[0]))  # and play goes on
    assert (await view(bus, t)).hand.phase != "over"


async def _reconciled(bus: Any, t: str) -> bool:
    return any(e.kind == "stack_reconciled" for e in (await cmd(bus, t, GetEvents(after_seq=0))).events)


async def test_limits_down_pauses_the_table_until_it_answers(money_stack, bus):
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    money_stack["limits"].kill9()
    try:
        with pytest.raises(BusError) as refused:
            await cmd(bus, t, Start(participant_id=pids[0]))
        assert refused.value.code is ErrorCode.UNAVAILABLE and refused.value.details["reason"] == "paused"
        assert (await view(bus, t)).paused == "waiting for the limits"
    finally:
        money_stack["limits"].start()
        await in_thread(money_stack["limits"].wait_ready)
    await resumed(bus, t)
    await cmd(bus, t, Start(participant_id=pids[0]))


async def test_wallet_down_10s_backs_off_and_resumes_within_2s(money_stack, bus, ledger_db):
    """An auto-start table that plays itself (0.2 s turns time out): with the wallet away for
    10 s it deals at most one hand, logs a handful of lines, and deals again within 2 s of the
    wallet's return."""
    t = await create_table(bus, start_mode="auto", turn_seconds=0.2)
    await seat_players(bus, t, 2, buy_in=100)

    async def hand_starts(after_seq: int = 0) -> list[Any]:
        return [
            e for e in (await cmd(bus, t, GetEvents(after_seq=after_seq, limit=5000))).events if e.kind == "hand_start"
        ]

    await eventually(lambda: _hands_at_least(hand_starts, 2))
    log = money_stack["table"].log
    offset = log.stat().st_size
    seq = (await view(bus, t)).seq
    money_stack["wallet"].kill9()
    down_at = time.monotonic()
    await asyncio.sleep(10)
    during = len(await hand_starts(seq))
    lines = log.read_text()[offset:].splitlines()
    assert (await view(bus, t)).paused == "waiting for the wallet"
    money_stack["wallet"].start()
    await in_thread(money_stack["wallet"].wait_ready)
    back_at = time.monotonic()
    seq_back = (await view(bus, t)).seq
    await eventually(lambda: _hands_at_least(lambda: hand_starts(seq_back), 1), timeout=10, every=0.02)
    resumed_in = time.monotonic() - back_at
    print(
        f"\nwallet down {back_at - down_at:.1f}s: hands started {during}, table log lines {len(lines)}, "
        f"next hand {resumed_in:.2f}s after the wallet was ready"
    )
    print("\n".join(f"  {x[:240]}" for x in lines))
    assert during <= 2, during
    assert len(lines) <= 6, lines
    assert resumed_in < 2.0, resumed_in
    await eventually(lambda: _quiet(bus, t))
    await check_invariants(ledger_db)


async def _hands_at_least(starts: Any, n: int) -> bool:
    return len(await starts()) >= n


async def _quiet(bus: Any, t: str) -> bool:
    v = await view(bus, t)
    return v.paused is None


async def test_timer_down_pauses_the_table_and_the_lost_turn_deadline_is_set_again(money_stack, bus):
    t = await create_table(bus, turn_seconds=0.5)
    pids = await seat_players(bus, t, 2)
    money_stack["timer"].kill9()
    try:
        await cmd(bus, t, Start(participant_id=pids[0]))  # the first turn's deadline gets no answer
        await eventually(lambda: _paused_for(bus, t, "waiting for the timer"))
        turn = (await view(bus, t)).hand.turn_id
    finally:
        money_stack["timer"].start()
        await in_thread(money_stack["timer"].wait_ready)
    await resumed(bus, t)
    await eventually(lambda: _turn_moved(bus, t, turn))  # the turn timed out by itself


async def _paused_for(bus: Any, t: str, what: str) -> bool:
    return (await view(bus, t)).paused == what


async def _turn_moved(bus: Any, t: str, turn: int) -> bool:
    h = (await view(bus, t)).hand
    return h.phase == "over" or h.turn_id != turn


async def test_at_a_buy_in_table_a_bet_needs_no_wallet_and_the_hand_settles_once_it_is_back(
    money_stack, bus, ledger_db
):
    """The reserve is the hold: a bet moves no chip, so the hand plays on while the wallet is
    away; its end is stored and sent until the wallet answers, and settles once."""
    t, pids, hand_id = await started(bus)
    bettor = actor_of(await view(bus, t))
    money_stack["wallet"].kill9()
    await cmd(bus, t, Act(participant_id=bettor, action="raiseTo", amount=10))
    await fold_win(bus, t)
    money_stack["wallet"].start()
    await in_thread(money_stack["wallet"].wait_ready)
    await after(bus, ledger_db, t, hand_id)
    got = await settle_of(ledger_db, hand_id)
    assert got["status"] == "settled" and got["escrow"] == 0, got
    assert sorted(s.stack for s in (await view(bus, t)).seats) == [98, 102]  # the big blind's 2 changed hands
    await cmd(bus, t, Start(participant_id=pids[0]))  # the next hand deals
