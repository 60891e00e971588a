"""Tournament prize pools: buy-ins in, refunds and prizes out, each exactly once.

A prize pool is a ledger account (`pool|<pool_id>`, no player's); each buy-in is an entry row
(the caller's `entry_id`). A pool ends once (`pool_close:<pool_id>`, like a hand's end): paid
to the finishers, summing to the whole pool, or refunded entry by entry; after that no entry
goes in. Every command runs inside the writer's transaction like the ledger's own
(ledger.apply dispatches here), so a crash leaves all of it or none of it, and a retry with
the same ids returns the first result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    PoolClose,
    PoolEntry,
    PoolEntryInfo,
    PoolEntryResult,
    PoolOutcome,
    PoolRefund,
    PoolRefundResult,
    PoolState,
    TransferInfo,
    TransferKind,
)
from felt_runtime.bus import BusError
from felt_wallet.store import ENTRIES_OF, Row, Work, available_key, commands, ledger, pool_entries, pool_key

if TYPE_CHECKING:
    from felt_wallet.ledger import _Ctx

PoolCommand = PoolEntry | PoolRefund | PoolClose
POOL_COMMANDS = (PoolEntry, PoolRefund, PoolClose)

RESULTS: dict[str, type[BaseModel]] = {
    "pool_entry": PoolEntryResult,
    "pool_refund": PoolRefundResult,
    "pool_close": PoolOutcome,
}


def close_key(pool_id: str) -> str:
    return f"pool_close:{pool_id}"


def command_key(req: PoolCommand) -> tuple[str, str]:
    """(idempotency key, kind): an entry and its refund once each, a pool's close once."""
    if isinstance(req, PoolEntry):
        return f"pool_entry:{req.entry_id}", "pool_entry"
    if isinstance(req, PoolRefund):
        return f"pool_refund:{req.entry_id}", "pool_refund"
    return close_key(req.pool_id), "pool_close"


def prefetch_plan(req: PoolCommand) -> tuple[list[str], list[str], list[str]]:
    """(command keys, account ids, ledger keys) a command will read."""
    keys = [command_key(req)[0], close_key(req.pool_id)]
    if isinstance(req, PoolEntry):
        return keys, [req.account_id], [available_key(req.account_id), pool_key(req.pool_id)]
    if isinstance(req, PoolClose):
        paid = [p.account_id for p in req.payouts]
        return keys, paid, [pool_key(req.pool_id), *map(available_key, paid)]
    return keys, [], [pool_key(req.pool_id)]


def prefetch(w: Work, batch: list[Any]) -> None:
    """The entries of the pools the batch's pool commands touch, in one query."""
    pools = [req.pool_id for req in batch if isinstance(req, POOL_COMMANDS)]
    if pools:
        w.load_of("entries-of", pool_entries, ENTRIES_OF, pools)


def apply(ctx: _Ctx, req: PoolCommand) -> BaseModel:
    """Run one pool command (idempotency is the caller's, ledger.apply)."""
    ctx.w.load_of("entries-of", pool_entries, ENTRIES_OF, [req.pool_id])
    if isinstance(req, PoolEntry):
        return _enter(ctx, req)
    if isinstance(req, PoolRefund):
        return _refund_one(ctx, req)
    return _close(ctx, req)


def _closed(w: Work, pool_id: str) -> str | None:
    """How the pool ended (`paid`, `refunded`), or None while it is open."""
    seen = w.get(commands, close_key(pool_id))
    return None if seen is None else PoolOutcome.model_validate_json(seen["result"]).status


def _pool_row(w: Work, pool_id: str) -> Row:
    """The pool's ledger account, opened empty (no player's) the first time."""
    row = w.get(ledger, pool_key(pool_id))
    if row is None:
        row = {"key": pool_key(pool_id), "kind": "pool", "account_id": None, "table_id": None, "hand_id": None}
        w.put(ledger, {**row, "balance": 0})
        row = w.get(ledger, pool_key(pool_id))
        assert row is not None
    return row


def _enter(ctx: _Ctx, req: PoolEntry) -> PoolEntryResult:
    w = ctx.w
    acct = ctx.account(req.account_id)
    ended = _closed(w, req.pool_id)
    if ended is not None:
        raise BusError(ErrorCode.CONFLICT, f"prize pool already {ended}", reason="pool_closed", pool_id=req.pool_id)
    _pool_row(w, req.pool_id)
    tid = f"pool_entry:{req.entry_id}"
    ctx.move(
        TransferKind.POOL_ENTRY,
        tid,
        available_key(req.account_id),
        pool_key(req.pool_id),
        req.amount,
        account=acct,
        pool_id=req.pool_id,
    )
    w.put(
        pool_entries,
        {
            "entry_id": req.entry_id,
            "pool_id": req.pool_id,
            "account_id": req.account_id,
            "amount": req.amount,
            "refunded": False,
        },
    )
    return PoolEntryResult(
        transfer_id=tid,
        pool_id=req.pool_id,
        entry_id=req.entry_id,
        pool=ctx.balance(pool_key(req.pool_id)),
        available=ctx.balance(available_key(req.account_id)),
    )


def _give_back(ctx: _Ctx, entry: Row) -> TransferInfo:
    """One entry's buy-in back to its account's available chips."""
    ctx.w.put(pool_entries, {**entry, "refunded": True})
    return ctx.move(
        TransferKind.POOL_REFUND,
        f"pool_refund:{entry['entry_id']}",
        pool_key(entry["pool_id"]),
        available_key(entry["account_id"]),
        entry["amount"],
        account=ctx.account(entry["account_id"]),
        pool_id=entry["pool_id"],
    )


def _refund_one(ctx: _Ctx, req: PoolRefund) -> PoolRefundResult:
    w = ctx.w
    entry = w.get(pool_entries, req.entry_id)
    if entry is None or entry["pool_id"] != req.pool_id:
        raise BusError(ErrorCode.NOT_FOUND, "no such entry in this pool", pool_id=req.pool_id, entry_id=req.entry_id)
    ended = _closed(w, req.pool_id)
    if entry["refunded"] or ended is not None:
        raise BusError(
            ErrorCode.CONFLICT,
            "entry already refunded" if entry["refunded"] else f"prize pool already {ended}",
            reason="refunded" if entry["refunded"] else "pool_closed",
            entry_id=req.entry_id,
        )
    info = _give_back(ctx, entry)
    return PoolRefundResult(
        transfer_id=info.transfer_id,
        pool_id=req.pool_id,
        entry_id=req.entry_id,
        amount=info.amount,
        pool=ctx.balance(pool_key(req.pool_id)),
    )


def _close(ctx: _Ctx, req: PoolClose) -> PoolOutcome:
    w = ctx.w
    out: list[TransferInfo] = []
    if req.outcome == "refunded":
        if req.payouts:
            raise BusError(ErrorCode.MALFORMED, "a refunded pool pays no prizes", field="payouts")
        entries = sorted(w.scan(pool_entries, pool_id=req.pool_id, refunded=False), key=lambda e: e["entry_id"])
        out = [_give_back(ctx, e) for e in entries]
    else:
        pool = ctx.balance(pool_key(req.pool_id))
        paid = sum(p.amount for p in req.payouts)
        if paid != pool:
            raise BusError(ErrorCode.INVALID_AMOUNT, "prizes must empty the pool exactly", pool=pool, paid=paid)
        for n, p in enumerate(req.payouts):
            out.append(
                ctx.move(
                    TransferKind.PRIZE,
                    f"prize:{req.pool_id}:{n}",
                    pool_key(req.pool_id),
                    available_key(p.account_id),
                    p.amount,
                    account=ctx.account(p.account_id),
                    pool_id=req.pool_id,
                )
            )
    return PoolOutcome(pool_id=req.pool_id, status=req.outcome, transfers=out)


async def state(engine: AsyncEngine, pool_id: str) -> PoolState:
    """A pool's balance, how it ended (or `open`) and its entries (a query: no writer)."""
    async with engine.connect() as conn:
        balance = (
            await conn.execute(sa.select(ledger.c.balance).where(ledger.c.key == pool_key(pool_id)))
        ).scalar_one_or_none()
        ended = (
            await conn.execute(sa.select(commands.c.result).where(commands.c.key == close_key(pool_id)))
        ).scalar_one_or_none()
        rows = (
            (
                await conn.execute(
                    sa.select(pool_entries).where(pool_entries.c.pool_id == pool_id).order_by(pool_entries.c.entry_id)
                )
            )
            .mappings()
            .all()
        )
    return PoolState(
        pool_id=pool_id,
        balance=int(balance or 0),
        status="open" if ended is None else PoolOutcome.model_validate_json(ended).status,
        entries=[
            PoolEntryInfo(
                entry_id=r["entry_id"], account_id=r["account_id"], amount=r["amount"], refunded=r["refunded"]
            )
            for r in rows
        ],
    )
