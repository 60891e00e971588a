"""Every table command is applied at most once per `message_id`: a resend gets the first
result (also when its sender has the turn again by then), and the wallet transfers a command
causes carry ids derived from it, never fresh ones (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, GetEvents, Join, Leave, SetAutoRebuy, Start, TableRequest, TableResult
from felt_contracts.wallet import BuyIn, BuyInResult
from felt_runtime.bus import BusError, call
from felt_wallet.store import transfers
from tests.table.conftest import balance, cmd, create_table, player, uid
from tests.table.money import actor_of, passive, seat_players, view


async def send(bus: Any, t: str, command: Any, message_id: str) -> TableResult:
    return await call(
        bus,
        subjects.table_command(t),
        TableRequest(table_id=t, command=command, message_id=message_id),
        TableResult,
        timeout=10,
    )


async def transfers_of(engine: Any, pid: str, kind: str) -> list[str]:
    async with engine.connect() as conn:
        return list(
            (
                await conn.execute(
                    sa.select(transfers.c.transfer_id).where(transfers.c.account_id == pid, transfers.c.kind == kind)
                )
            ).scalars()
        )


async def kinds(bus: Any, t: str, viewer: str | None = None) -> list[str]:
    return [e.kind for e in (await cmd(bus, t, GetEvents(after_seq=0, viewer=viewer))).events]


async def test_an_act_resent_when_its_sender_has_the_turn_again_gets_the_first_result(money_stack, bus):
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await send(bus, t, Start(participant_id=pids[0]), uid("m"))
    sb = actor_of(await view(bus, t))  # heads-up: the button posts the small blind and acts first
    call_sb = Act(participant_id=sb, action="call")
    first = await send(bus, t, call_sb, "call-1")
    await passive(bus, t)  # the big blind checks: the flop
    await passive(bus, t)  # the big blind checks again: the small blind has the turn again
    before = await view(bus, t)
    assert actor_of(before) == sb and before.hand.street == "flop"
    again = await send(bus, t, call_sb, "call-1")
    # the first outcome (its seq), with the table as it is now; nothing applied
    assert (again.seq, again.status, again.seat) == (first.seq, first.status, first.seat)
    assert first.view is not None and first.view.hand.street == "preflop"
    assert again.view is not None and (again.view.seq, again.view.hand.street) == (before.seq, "flop")
    after = await view(bus, t)
    assert (after.seq, after.hand.turn_id, actor_of(after)) == (before.seq, before.hand.turn_id, sb)
    assert (await kinds(bus, t)).count("call") == 1


def replay_of(again: TableResult, first: TableResult) -> bool:
    """A resend's answer: the first outcome, marked replayed."""
    return again.replayed and not first.replayed and again.model_copy(update={"replayed": False}) == first


async def test_join_and_leave_resent_apply_once_with_derived_transfer_ids(money_stack, bus, ledger_db):
    t = await create_table(bus)
    pid, owner = await player(bus)
    join = Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=60)
    first = await send(bus, t, join, "join-1")
    assert replay_of(await send(bus, t, join, "join-1"), first)
    b = await balance(bus, pid)
    assert (b.available, b.reserved) == (140, 60)
    assert await transfers_of(ledger_db, pid, "buy_in") == [f"buy_in:{t}:{pid}:join:join-1"]
    left = await send(bus, t, Leave(participant_id=pid), "leave-1")
    assert left.status == "left"
    assert replay_of(await send(bus, t, Leave(participant_id=pid), "leave-1"), left)
    b = await balance(bus, pid)
    assert (b.available, b.reserved) == (200, 0)
    [cash_out] = await transfers_of(ledger_db, pid, "cash_out")
    assert cash_out.startswith("cash_out:") and cash_out.endswith(":out")  # cash_out:<session>:out
    assert (await kinds(bus, t)).count("seated") == 1 and (await kinds(bus, t)).count("left") == 1


async def test_a_message_id_reused_for_another_command_is_refused(money_stack, bus):
    t = await create_table(bus)
    pid, owner = await player(bus)
    await send(bus, t, Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=60), "m-1")
    with pytest.raises(BusError) as refused:
        await send(bus, t, Leave(participant_id=pid), "m-1")
    assert refused.value.code is ErrorCode.CONFLICT and refused.value.details["reason"] == "message_id_reused"
    assert len((await view(bus, t)).seats) == 1  # nothing changed


async def test_auto_rebuy_resent_applies_once_and_the_top_up_id_derives_from_the_hand(money_stack, bus, ledger_db):
    t = await create_table(bus, auto_rebuy=True)
    pids = await seat_players(bus, t, 2, buy_in=50)
    on = SetAutoRebuy(participant_id=pids[0], enabled=True)
    first = await send(bus, t, on, "rebuy-on")
    assert replay_of(await send(bus, t, on, "rebuy-on"), first)
    assert (await kinds(bus, t, pids[0])).count("auto_rebuy") == 1
    await send(bus, t, Start(participant_id=pids[0]), uid("m"))  # the deal tops the stack up to 100 first
    hand_id = (await view(bus, t)).hand.hand_id
    rebuy = f"{t}:{pids[0]}:rebuy:{hand_id}"
    assert (await transfers_of(ledger_db, pids[0], "buy_in"))[-1] == f"buy_in:{rebuy}"
    b = await balance(bus, pids[0])
    # the wallet's view of a resend of that top-up: the first result, nothing moves
    again = await call(
        bus,
        subjects.WALLET_BUY_IN,
        BuyIn(message_id=rebuy, account_id=pids[0], table_id=t, amount=50, min_buy_in=0, max_buy_in=100),
        BuyInResult,
    )
    assert again.transfer_id == f"buy_in:{rebuy}"
    assert (await balance(bus, pids[0])).available == b.available
