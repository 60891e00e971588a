"""Tournament chips: a ledger of their own per tournament, inside the wallet's double entry.

Each entrant's chips are an account of its own (`chips_account(tournament, participant)`), so
a tournament table buys in, settles hands and cashes out through the very commands of a cash
table. They come from the tournament's issuer (`chips|<tournament>`, a house-kind account: it
goes negative by what is out) and go back to it at the end, when it is zero again. They are
never in a player's balance, on the leaderboard or in the transfer events limits counts
(ledger.announce). Commands run inside the writer's transaction like the ledger's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    ChipsIssue,
    ChipsMoved,
    ChipsRetire,
    TransferInfo,
    TransferKind,
    chips_account,
)
from felt_runtime.bus import BusError
from felt_wallet.store import Row, Work, accounts, available_key, commands, ledger, ledger_key

if TYPE_CHECKING:
    from felt_wallet.ledger import _Ctx

ChipsCommand = ChipsIssue | ChipsRetire
CHIPS_COMMANDS = (ChipsIssue, ChipsRetire)
RESULTS: dict[str, type[BaseModel]] = {"chips_issue": ChipsMoved, "chips_retire": ChipsMoved}


def issuer_key(ledger_id: str) -> str:
    return ledger_key("chips", ledger_id)


def retire_key(ledger_id: str) -> str:
    return f"chips_retire:{ledger_id}"


def command_key(req: ChipsCommand) -> tuple[str, str]:
    """(idempotency key, kind): each issue once, a ledger's retirement once."""
    if isinstance(req, ChipsIssue):
        return f"chips_issue:{req.ledger_id}:{req.issue_id}", "chips_issue"
    return retire_key(req.ledger_id), "chips_retire"


def prefetch_plan(req: ChipsCommand) -> tuple[list[str], list[str], list[str]]:
    """(command keys, account ids, ledger keys) a command will read."""
    keys = [command_key(req)[0], retire_key(req.ledger_id)]
    if isinstance(req, ChipsIssue):
        accts = [chips_account(req.ledger_id, s.participant_id) for s in req.stacks]
        return keys, accts, [issuer_key(req.ledger_id), *map(available_key, accts)]
    return keys, [], [issuer_key(req.ledger_id)]


def apply(ctx: _Ctx, req: ChipsCommand) -> BaseModel:
    if ctx.w.get(commands, retire_key(req.ledger_id)) is not None:
        raise BusError(ErrorCode.CONFLICT, "the tournament's chips are retired", reason="chips_retired")
    return _issue(ctx, req) if isinstance(req, ChipsIssue) else _retire(ctx, req)


def _issuer(w: Work, ledger_id: str) -> Row:
    key = issuer_key(ledger_id)
    row = w.get(ledger, key)
    if row is None:
        w.put(
            ledger, {"key": key, "kind": "house", "account_id": None, "table_id": None, "hand_id": None, "balance": 0}
        )
        row = w.get(ledger, key)
        assert row is not None
    return row


def _account(ctx: _Ctx, account_id: str) -> Row:
    """The chips account, opened empty (no owner: no limits count it) the first time."""
    row = ctx.w.get(accounts, account_id)
    if row is None:
        row = {"account_id": account_id, "owner_id": None, "in_play": 0, "granted": 0, "refilled": 0}
        ctx.w.put(accounts, {**row, "created_at": ctx.w.now})
    return ctx.account(account_id)


def _issue(ctx: _Ctx, req: ChipsIssue) -> ChipsMoved:
    issuer = _issuer(ctx.w, req.ledger_id)
    out = []
    for n, stack in enumerate(req.stacks):
        acct = _account(ctx, chips_account(req.ledger_id, stack.participant_id))
        tid = f"chips_issue:{req.ledger_id}:{req.issue_id}:{n}"
        out.append(
            ctx.move(
                TransferKind.CHIPS_ISSUE,
                tid,
                issuer["key"],
                available_key(acct["account_id"]),
                stack.amount,
                account=acct,
            )
        )
    return ChipsMoved(ledger_id=req.ledger_id, issuer=ctx.balance(issuer["key"]), transfers=out)


def _retire(ctx: _Ctx, req: ChipsRetire) -> ChipsMoved:
    w = ctx.w
    issuer = _issuer(w, req.ledger_id)
    prefix = chips_account(req.ledger_id, "")
    w.load_where(("chips-of", req.ledger_id), ledger, ledger.c.account_id.startswith(prefix, autoescape=True))
    held = sorted(
        (r for r in w.scan(ledger) if (r["account_id"] or "").startswith(prefix) and r["balance"]),
        key=lambda r: r["key"],
    )
    at_table = [r["account_id"] for r in held if r["kind"] != "available"]
    if at_table:
        raise BusError(
            ErrorCode.CONFLICT, "tournament chips are still at a table", reason="chips_at_table", accounts=at_table
        )
    out: list[TransferInfo] = []
    for n, row in enumerate(held):
        tid = f"chips_retire:{req.ledger_id}:{n}"
        acct = ctx.account(row["account_id"])
        out.append(ctx.move(TransferKind.CHIPS_RETIRE, tid, row["key"], issuer["key"], row["balance"], account=acct))
    left = ctx.balance(issuer["key"])
    if left:  # every chip issued is in one of the accounts: this is a bug, not a refusal
        raise BusError(ErrorCode.CONFLICT, "the issuer does not come back to zero", reason="chips_not_conserved")
    return ChipsMoved(ledger_id=req.ledger_id, issuer=left, transfers=out)
