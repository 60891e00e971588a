"""What the money tests check after a failure, read from the wallet's own database and the
table's view: one hand's settlement, stacks against reserves, and a few play helpers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, GetHand, GetView, Join, Ready, TableRequest, TableResult, TableView
from felt_runtime.bus import BusError, call
from felt_wallet.store import escrow_key, hands, ledger, transfers
from tests.table.conftest import balance, cmd, player


async def in_thread(fn: Callable[[], Any]) -> None:
    """A blocking call (a service's start-up wait) without stopping the event loop."""
    await asyncio.get_running_loop().run_in_executor(None, fn)


async def view(bus: Any, t: str, viewer: str | None = None) -> TableView:
    v = (await cmd(bus, t, GetView(viewer=viewer))).view
    assert v is not None
    return v


async def seat_players(bus: Any, t: str, n: int, buy_in: int = 100) -> list[str]:
    """`n` new players seated and ready. The money stack's calls to the wallet time out after
    CALL_TIMEOUT (1 s): on a loaded machine a join can be refused `unavailable`, and is then sent
    again with the same message id, as a client does."""
    pids = []
    for _ in range(n):
        pid, owner = await player(bus)
        join = Join(participant_id=pid, owner_id=owner, kind="agent", buy_in=buy_in)
        for attempt in range(3):
            try:
                await call(
                    bus,
                    subjects.table_command(t),
                    TableRequest(table_id=t, command=join, message_id=f"join-{pid}"),
                    TableResult,
                )
                break
            except BusError as err:
                if err.code is not ErrorCode.UNAVAILABLE or attempt == 2:
                    raise
        await cmd(bus, t, Ready(participant_id=pid))
        pids.append(pid)
    return pids


def actor_of(v: TableView) -> str:
    assert v.hand is not None and v.hand.actor_seat_id is not None
    return next(s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id)


async def passive(bus: Any, t: str, **kw: Any) -> Any:
    """The actor checks when free, otherwise calls."""
    pid = actor_of(await view(bus, t))
    la = (await view(bus, t, pid)).hand.legal_actions
    return await cmd(bus, t, Act(participant_id=pid, action="check" if la.check else "call"), **kw)


async def settle_of(engine: Any, hand_id: str) -> dict[str, Any]:
    """The wallet's record of one hand: status (None: the wallet has not seen it; a buy-in table's
    hand reaches it with its settlement), escrow left, and what each account got back."""
    async with engine.connect() as conn:
        status = (await conn.execute(sa.select(hands.c.status).where(hands.c.hand_id == hand_id))).scalar()
        escrow = (await conn.execute(sa.select(ledger.c.balance).where(ledger.c.key == escrow_key(hand_id)))).scalar()
        rows = (
            await conn.execute(
                sa.select(transfers.c.kind, transfers.c.account_id, transfers.c.amount).where(
                    transfers.c.hand_id == hand_id, transfers.c.kind != "commit"
                )
            )
        ).all()
    credited: dict[str, int] = {}
    for _, account, amount in rows:
        credited[account] = credited.get(account, 0) + amount
    return {
        "status": status,
        "escrow": escrow or 0,
        "kinds": sorted({k for k, _, _ in rows}),
        "credited": credited,
        "transfers": len(rows),
    }


async def awards_of(bus: Any, t: str, hand_id: str) -> dict[str, int]:
    """What the table's hand record says each participant won or got back."""
    h = (await cmd(bus, t, GetHand(hand_id=hand_id))).hand
    assert h is not None
    out: dict[str, int] = {}
    for op in h.operations:
        if op.kind == "award" and op.amount:
            pid = h.summary.seats[str(op.seat)]
            out[pid] = out.get(pid, 0) + op.amount
    return out


async def assert_settled_once(bus: Any, engine: Any, t: str, hand_id: str) -> None:
    """Settled (never cancelled), with exactly the table's winners, and an empty escrow."""
    got = await settle_of(engine, hand_id)
    assert got["status"] == "settled" and got["escrow"] == 0, got
    assert "refund" not in got["kinds"], got
    assert got["credited"] == await awards_of(bus, t, hand_id), got


async def stacks_vs_reserves(bus: Any, t: str) -> tuple[dict[str, int], dict[str, int]]:
    v = await view(bus, t)
    stacks = {s.participant_id: s.stack for s in v.seats}
    reserves = {p: (await balance(bus, p)).reserves.get(t, 0) for p in stacks}
    return stacks, reserves


async def assert_stacks_are_reserves(bus: Any, t: str) -> None:
    stacks, reserves = await stacks_vs_reserves(bus, t)
    assert stacks == reserves, (stacks, reserves)
