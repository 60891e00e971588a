"""The wallet's commands, applied to a `Work` (one transaction's in-memory view).

Each command either returns its result or raises `BusError` before the writer flushes; the
writer then undoes that command's journaled changes only. Idempotency: every command has a
key (see `command_key`); a stored key with the same content fingerprint returns the stored
result and moves nothing, with different content it is refused `conflict`.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel

from felt_runtime.idempotency import fingerprint
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    AccountOpened,
    BuyIn,
    BuyInResult,
    CancelHand,
    CancelTable,
    CashOut,
    CashOutResult,
    Commit,
    CommitResult,
    HandOutcome,
    OpenAccount,
    Refill,
    Refilled,
    Settle,
    TableCancelled,
    TableScoped,
    TransferEvent,
    TransferInfo,
    TransferKind,
    is_chips_account,
)
from felt_runtime.bus import BusError
from felt_wallet import chips, pools, refills
from felt_wallet.refills import Grants
from felt_wallet.store import (
    CONTRIBUTIONS_TO,
    HOUSE,
    OPEN_SESSIONS_OF,
    Row,
    Work,
    accounts,
    available_key,
    commands,
    contributions,
    escrow_key,
    hands,
    ledger,
    reserve_key,
    sessions,
    table_leases,
)

Command = (
    OpenAccount
    | BuyIn
    | Commit
    | Settle
    | CancelHand
    | CancelTable
    | CashOut
    | Refill
    | pools.PoolCommand
    | chips.ChipsCommand
)


def command_key(req: Command) -> tuple[str, str]:
    """(idempotency key, kind). Settle and cancel of a hand share one key: a hand ends once."""
    if isinstance(req, pools.POOL_COMMANDS):
        return pools.command_key(req)
    if isinstance(req, chips.CHIPS_COMMANDS):
        return chips.command_key(req)
    match req:
        case OpenAccount():
            return f"open:{req.account_id}", "open"
        case BuyIn():
            return f"buy_in:{req.message_id}", "buy_in"
        case Commit():
            return commit_id(req.hand_id, req.seq), "commit"
        case Settle():
            return f"end:{req.hand_id}", "settle"
        case CancelHand():
            return f"end:{req.hand_id}", "cancel"
        case CancelTable():
            return f"cancel_table:{req.message_id}", "cancel_table"
        case CashOut():
            return f"cash_out:{req.message_id}", "cash_out"
        case Refill():
            return refills.refill_key(req.account_id, req.refill_id), "refill"
    raise TypeError(type(req))


def commit_id(hand_id: str, seq: int) -> str:
    return f"commit:{hand_id}:{seq}"


RESULTS: dict[str, type[BaseModel]] = {
    "open": AccountOpened,
    "buy_in": BuyInResult,
    "commit": CommitResult,
    "settle": HandOutcome,
    "cancel": HandOutcome,
    "cancel_table": TableCancelled,
    "cash_out": CashOutResult,
    "refill": Refilled,
    **pools.RESULTS,
    **chips.RESULTS,
}


def prefetch_plan(req: Command) -> tuple[list[str], list[str], list[str], list[str]]:
    """(command keys, account ids, hand ids, ledger keys) a command will read."""
    key = [command_key(req)[0]]
    if isinstance(req, pools.POOL_COMMANDS):
        keys, accts, lkeys = pools.prefetch_plan(req)
        return keys, accts, [], lkeys
    if isinstance(req, chips.CHIPS_COMMANDS):
        keys, accts, lkeys = chips.prefetch_plan(req)
        return keys, accts, [], lkeys
    match req:
        case OpenAccount() | Refill():
            return key, [req.account_id], [], [available_key(req.account_id), HOUSE]
        case BuyIn() | CashOut():
            a, t = req.account_id, req.table_id
            return key, [a], [], [available_key(a), reserve_key(a, t)]
        case Commit():
            a, t = req.account_id, req.table_id
            return key, [a], [req.hand_id], [available_key(a), reserve_key(a, t), escrow_key(req.hand_id)]
        case Settle():
            paid = list(
                dict.fromkeys([p.account_id for p in (*req.payouts, *req.returns)] + [x.account_id for x in req.wagers])
            )
            dests = [k for a in paid for k in (available_key(a), reserve_key(a, req.table_id))]
            return key, paid, [req.hand_id], [escrow_key(req.hand_id), *dests]
        case CancelHand():
            return key, [], [req.hand_id], [escrow_key(req.hand_id)]
    return key, [], [], []


def prefetch(w: Work, batch: list[Command]) -> None:
    """Read what the batch's commands will read in one query per table (a miss is read alone later)."""
    keys: list[str] = []
    accts: list[str] = []
    hand_ids: list[str] = []
    lkeys: list[str] = []
    for req in batch:
        k, a, h, lk = prefetch_plan(req)
        keys += k
        accts += a
        hand_ids += h
        lkeys += lk
    w.load(commands, keys)
    w.load(accounts, accts)
    w.load(hands, hand_ids)
    w.load(ledger, lkeys)
    fenced = [req.table_id for req in batch if isinstance(req, TableScoped) and req.lease is not None]
    if fenced:
        w.load(table_leases, fenced)
    w.load_of("sessions-of", sessions, OPEN_SESSIONS_OF, accts)
    w.load_of("contribs-of", contributions, CONTRIBUTIONS_TO, hand_ids)
    pools.prefetch(w, batch)


def apply(w: Work, req: Command, grants: Grants) -> BaseModel:
    """Run one command idempotently (the writer catches `BusError` and undoes it)."""
    if isinstance(req, TableScoped) and req.lease is not None:
        fence(w, req.table_id, req.lease)
    key, kind = command_key(req)
    fp = fingerprint(req, type(req).__name__)
    seen = w.get(commands, key)
    if seen is not None:
        if seen["kind"] != kind:
            raise BusError(
                ErrorCode.HAND_CLOSED, f"hand already {_past(seen['kind'])}", hand_id=getattr(req, "hand_id", None)
            )
        if seen["fingerprint"] != fp:
            raise BusError(ErrorCode.CONFLICT, "same id, different content", key=key)
        return RESULTS[kind].model_validate_json(seen["result"])
    ctx = _Ctx(w, req.correlation_id)
    if isinstance(req, pools.POOL_COMMANDS):
        result: BaseModel = pools.apply(ctx, req)
    if isinstance(req, chips.CHIPS_COMMANDS):
        result = chips.apply(ctx, req)
    match req:
        case OpenAccount():
            result = ctx.open_account(req, grants.grant)
        case BuyIn():
            result = ctx.buy_in(req)
        case Commit():
            result = ctx.commit(req)
        case Settle():
            result = ctx.settle(req)
        case CancelHand():
            result = ctx.cancel_hand(req.table_id, req.hand_id, must_exist=True)
        case CancelTable():
            result = ctx.cancel_table(req)
        case CashOut():
            result = ctx.cash_out(req.account_id, req.table_id, req.amount, f"cash_out:{req.message_id}")
        case Refill():
            result = ctx.refill(req, key, grants)
    w.put(commands, {"key": key, "kind": kind, "fingerprint": fp, "result": result.model_dump_json()})
    return result


def fence(w: Work, table_id: str, lease: int) -> None:
    """Refuse a table replica whose lease is older than the newest seen for the table; a newer
    one becomes the newest (in the command's transaction)."""
    seen = w.get(table_leases, table_id)
    if seen is not None and lease < seen["lease"]:
        raise BusError(
            ErrorCode.CONFLICT, "this table has a newer owner", reason="stale_lease", table_id=table_id, lease=lease
        )
    if seen is None or lease > seen["lease"]:
        w.put(table_leases, {"table_id": table_id, "lease": lease})


def _past(kind: str) -> str:
    return {"settle": "settled", "cancel": "cancelled"}.get(kind, kind)


class _Ctx:
    def __init__(self, w: Work, correlation_id: str) -> None:
        self.w = w
        self.correlation_id = correlation_id

    # --- helpers -----------------------------------------------------------------------
    def account(self, account_id: str) -> Row:
        row = self.w.get(accounts, account_id)
        if row is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown account", account_id=account_id)
        return row

    def balance(self, key: str) -> int:
        row = self.w.get(ledger, key)
        return 0 if row is None else row["balance"]

    def open_session(self, account_id: str, table_id: str) -> Row | None:
        self.w.load_of("sessions-of", sessions, OPEN_SESSIONS_OF, [account_id])
        found = self.w.scan(sessions, account_id=account_id, table_id=table_id, status="open")
        return found[0] if found else None

    def contribs(self, hand_id: str) -> list[Row]:
        self.w.load_of("contribs-of", contributions, CONTRIBUTIONS_TO, [hand_id])
        return sorted(self.w.scan(contributions, hand_id=hand_id), key=lambda r: (r["account_id"], r["source"]))

    def bump(self, table: Any, row: Row, **deltas: int) -> Row:
        new = {**row, **{k: row[k] + v for k, v in deltas.items()}}
        self.w.put(table, new)
        return new

    def move(
        self,
        kind: TransferKind,
        transfer_id: str,
        debit: str,
        credit: str,
        amount: int,
        *,
        account: Row,
        session_id: str | None = None,
        table_id: str | None = None,
        hand_id: str | None = None,
        pool_id: str | None = None,
    ) -> TransferInfo:
        """One double-entry transfer: debit -> credit; a player account never goes below zero."""
        w = self.w
        src = w.get(ledger, debit)
        if src is None and debit == HOUSE:
            src = {"key": HOUSE, "kind": "house", "account_id": None, "table_id": None, "hand_id": None, "balance": 0}
        if src is None or (src["kind"] != "house" and src["balance"] < amount):
            have = 0 if src is None else src["balance"]
            raise BusError(
                ErrorCode.INSUFFICIENT_FUNDS,
                f"{kind.value}: {have} available, {amount} needed",
                available=have,
                needed=amount,
            )
        dst = w.get(ledger, credit)
        if dst is None:
            kind_of = credit.split("|", 1)[0]
            dst = {
                "key": credit,
                "kind": kind_of,
                "account_id": None if kind_of == "escrow" else account["account_id"],
                "table_id": table_id if kind_of in ("reserve", "escrow") else None,
                "hand_id": hand_id if kind_of == "escrow" else None,
                "balance": 0,
            }
        w.put(ledger, {**src, "balance": src["balance"] - amount})
        w.put(ledger, {**dst, "balance": dst["balance"] + amount})
        row = {
            "transfer_id": transfer_id,
            "kind": kind.value,
            "debit": debit,
            "credit": credit,
            "amount": amount,
            "account_id": account["account_id"],
            "owner_id": account["owner_id"],
            "session_id": session_id,
            "table_id": table_id,
            "hand_id": hand_id,
            "at": w.now,
        }
        w.transfers.append(row)
        self.announce(
            kind,
            transfer_id,
            amount,
            account=account,
            session_id=session_id,
            table_id=table_id,
            hand_id=hand_id,
            pool_id=pool_id,
        )
        return TransferInfo(transfer_id=transfer_id, kind=kind, account_id=account["account_id"], amount=amount)

    def announce(
        self,
        kind: TransferKind,
        transfer_id: str,
        amount: int,
        *,
        account: Row,
        session_id: str | None,
        table_id: str | None,
        hand_id: str | None = None,
        pool_id: str | None = None,
    ) -> None:
        """Queue the transfer's event in the outbox (same transaction as the state it describes).
        Tournament chips are not announced: limits count paper chips only (chips.py)."""
        if is_chips_account(account["account_id"]):
            return
        event = TransferEvent(
            event_id=transfer_id,
            correlation_id=self.correlation_id,
            transfer_id=transfer_id,
            kind=kind,
            account_id=account["account_id"],
            owner_id=account["owner_id"],
            session_id=session_id,
            table_id=table_id,
            hand_id=hand_id,
            pool_id=pool_id,
            amount=amount,
            at=self.w.now,
        )
        self.w.outbox.append({"transfer_id": transfer_id, "payload": event.model_dump_json()})

    # --- commands ----------------------------------------------------------------------
    def open_account(self, req: OpenAccount, grant: int) -> AccountOpened:
        w = self.w
        if w.get(accounts, req.account_id) is not None:  # opened under another key: impossible
            raise BusError(ErrorCode.CONFLICT, "account exists", account_id=req.account_id)
        acct = {
            "account_id": req.account_id,
            "owner_id": req.owner_id,
            "in_play": 0,
            "granted": grant,
            "refilled": 0,
            "created_at": w.now,
        }
        w.put(accounts, acct)
        tid = f"grant:{req.account_id}"
        w.put(
            ledger,
            {
                "key": available_key(req.account_id),
                "kind": "available",
                "account_id": req.account_id,
                "table_id": None,
                "hand_id": None,
                "balance": 0,
            },
        )
        if grant > 0:
            self.move(TransferKind.GRANT, tid, HOUSE, available_key(req.account_id), grant, account=acct)
        return AccountOpened(account_id=req.account_id, owner_id=req.owner_id, granted=grant, transfer_id=tid)

    def refill(self, req: Refill, transfer_id: str, grants: Grants) -> Refilled:
        """House -> available, as `refills.state` allows; the day is marked in the same transaction."""
        w = self.w
        acct = self.account(req.account_id)
        self.w.load_of("sessions-of", sessions, OPEN_SESSIONS_OF, [req.account_id])
        open_tables = {r["table_id"] for r in w.scan(sessions, account_id=req.account_id, status="open")}
        total = (
            self.balance(available_key(req.account_id))
            + sum(self.balance(reserve_key(req.account_id, t)) for t in open_tables)
            + acct["in_play"]
        )
        day = refills.day_key(req.account_id, w.now)
        now = refills.state(grants, req.account_id, total, w.get(commands, day) is not None, w.now)
        if now.status == "claimed_today":
            raise BusError(
                ErrorCode.REFILL_TOO_SOON,
                "a refill was claimed today",
                next_at=now.next_at.isoformat() if now.next_at else None,
            )
        if now.status == "has_chips" or now.amount <= 0:
            raise BusError(
                ErrorCode.REFILL_NOT_NEEDED,
                f"a refill needs fewer than {now.below} chips in all ({total} held)",
                total=total,
                below=now.below,
            )
        self.move(TransferKind.REFILL, transfer_id, HOUSE, available_key(req.account_id), now.amount, account=acct)
        self.bump(accounts, acct, granted=now.amount, refilled=now.amount)
        result = Refilled(
            account_id=req.account_id,
            transfer_id=transfer_id,
            amount=now.amount,
            available=self.balance(available_key(req.account_id)),
            next_at=refills.next_day(w.now),
        )
        w.put(commands, {"key": day, "kind": "refill_day", "fingerprint": "", "result": result.model_dump_json()})
        return result

    def buy_in(self, req: BuyIn) -> BuyInResult:
        acct = self.account(req.account_id)
        if req.min_buy_in > req.max_buy_in:
            raise BusError(ErrorCode.INVALID_AMOUNT, "min_buy_in above max_buy_in")
        if acct["in_play"] > 0:
            raise BusError(ErrorCode.CHIPS_IN_PLAY, "chips committed to an unsettled hand", in_play=acct["in_play"])
        rkey = reserve_key(req.account_id, req.table_id)
        reserved = self.balance(rkey)
        if req.amount < req.min_buy_in or reserved + req.amount > req.max_buy_in:
            raise BusError(
                ErrorCode.INVALID_AMOUNT,
                "buy-in outside the table's limits",
                amount=req.amount,
                min_buy_in=req.min_buy_in,
                max_buy_in=req.max_buy_in,
                reserved=reserved,
            )
        sess = self.open_session(req.account_id, req.table_id)
        if sess is None:
            sess = {
                "session_id": uuid.uuid4().hex,
                "account_id": req.account_id,
                "table_id": req.table_id,
                "status": "open",
                "buy_in": 0,
                "cash_out": 0,
                "gross_wagers": 0,
                "hands_played": 0,
                "opened_at": self.w.now,
                "closed_at": None,
            }
        tid = f"buy_in:{req.message_id}"
        self.move(
            TransferKind.BUY_IN,
            tid,
            available_key(req.account_id),
            rkey,
            req.amount,
            account=acct,
            session_id=sess["session_id"],
            table_id=req.table_id,
        )
        self.w.put(sessions, {**sess, "buy_in": sess["buy_in"] + req.amount})
        return BuyInResult(
            transfer_id=tid,
            session_id=sess["session_id"],
            reserved=self.balance(rkey),
            available=self.balance(available_key(req.account_id)),
        )

    def open_hand(self, hand_id: str, table_id: str) -> Row:
        """The hand's row, opened by its first chip (refused if it is another table's or ended)."""
        w = self.w
        hand = w.get(hands, hand_id)
        if hand is None:
            hand = {"hand_id": hand_id, "table_id": table_id, "status": "open", "opened_at": w.now, "closed_at": None}
            w.put(hands, hand)
        elif hand["table_id"] != table_id:
            raise BusError(ErrorCode.CONFLICT, "hand belongs to another table", hand_id=hand_id)
        elif hand["status"] != "open":
            raise BusError(ErrorCode.HAND_CLOSED, f"hand already {hand['status']}", hand_id=hand_id)
        return hand

    def commit(self, req: Commit) -> CommitResult:
        acct = self.account(req.account_id)
        self.open_hand(req.hand_id, req.table_id)
        sess = self.open_session(req.account_id, req.table_id)
        if req.from_available:
            source, skey = "available", available_key(req.account_id)
        elif sess is None:
            raise BusError(ErrorCode.INSUFFICIENT_FUNDS, "no chips reserved at this table", table_id=req.table_id)
        else:
            source, skey = "reserve", reserve_key(req.account_id, req.table_id)
        tid = commit_id(req.hand_id, req.seq)
        sid = sess["session_id"] if sess else req.session_id  # ante-nl-1: the table's play session
        self.into_escrow(acct, sess, source, skey, tid, req.amount, sid, req.table_id, req.hand_id)
        return CommitResult(
            transfer_id=tid,
            hand_id=req.hand_id,
            escrow=self.balance(escrow_key(req.hand_id)),
            remaining=self.balance(skey),
        )

    def into_escrow(
        self,
        acct: Row,
        sess: Row | None,
        source: str,
        skey: str,
        tid: str,
        amount: int,
        sid: str | None,
        table_id: str,
        hand_id: str,
    ) -> None:
        """`amount` from `skey` (the account's `source`: reserve or available) into the hand's
        escrow, with its contribution, session wager and hand count, and chips in play; an
        amount of 0 moves nothing and is announced (the hand counts for the session)."""
        w = self.w
        if amount:
            self.move(
                TransferKind.COMMIT,
                tid,
                skey,
                escrow_key(hand_id),
                amount,
                account=acct,
                session_id=sid,
                table_id=table_id,
                hand_id=hand_id,
            )
        else:
            self.announce(TransferKind.COMMIT, tid, 0, account=acct, session_id=sid, table_id=table_id, hand_id=hand_id)
        existing = [c for c in self.contribs(hand_id) if c["account_id"] == acct["account_id"]]
        mine = [c for c in existing if c["source"] == source]
        if mine:
            self.bump(contributions, mine[0], amount=amount)
        else:
            w.put(
                contributions,
                {
                    "hand_id": hand_id,
                    "account_id": acct["account_id"],
                    "source": source,
                    "amount": amount,
                    "session_id": sid,
                },
            )
        if sess is not None:
            self.bump(sessions, sess, gross_wagers=amount, hands_played=0 if existing else 1)
        self.bump(accounts, acct, in_play=amount)

    def _destination(self, account_id: str, table_id: str, sources: set[str]) -> tuple[str, str | None]:
        """Where a contributor's chips go back: the reserve it played from while its session is
        open there, otherwise its available balance."""
        if "reserve" in sources:
            sess = self.open_session(account_id, table_id)
            if sess is not None:
                return reserve_key(account_id, table_id), sess["session_id"]
        return available_key(account_id), None

    def _end(self, hand: Row, status: str) -> None:
        self.w.put(hands, {**hand, "status": status, "closed_at": self.w.now})
        per_account: dict[str, int] = {}
        for c in self.contribs(hand["hand_id"]):
            per_account[c["account_id"]] = per_account.get(c["account_id"], 0) + c["amount"]
        for account_id, amount in per_account.items():
            self.bump(accounts, self.account(account_id), in_play=-amount)

    def wagered(self, req: Settle) -> None:
        """A buy-in table's hand: each dealt seat's wager, from its reserve into the escrow."""
        for n, wager in enumerate(req.wagers):
            acct = self.account(wager.account_id)
            sess = self.open_session(wager.account_id, req.table_id)
            if sess is None:
                raise BusError(
                    ErrorCode.INSUFFICIENT_FUNDS, "no chips reserved at this table", account_id=wager.account_id
                )
            skey = reserve_key(wager.account_id, req.table_id)
            tid = f"commit:{req.hand_id}:w{n}"
            self.into_escrow(
                acct, sess, "reserve", skey, tid, wager.amount, sess["session_id"], req.table_id, req.hand_id
            )

    def settle(self, req: Settle) -> HandOutcome:
        w = self.w
        if req.wagers:
            self.open_hand(req.hand_id, req.table_id)
            self.wagered(req)
        hand = w.get(hands, req.hand_id)
        if hand is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown hand (no chips committed)", hand_id=req.hand_id)
        if hand["table_id"] != req.table_id:
            raise BusError(ErrorCode.CONFLICT, "hand belongs to another table", hand_id=req.hand_id)
        if hand["status"] != "open":
            raise BusError(ErrorCode.HAND_CLOSED, f"hand already {hand['status']}", hand_id=req.hand_id)
        contribs = self.contribs(req.hand_id)
        put_in: dict[str, int] = {}
        sources: dict[str, set[str]] = {}
        for c in contribs:
            put_in[c["account_id"]] = put_in.get(c["account_id"], 0) + c["amount"]
            sources.setdefault(c["account_id"], set()).add(c["source"])
        returned: dict[str, int] = {}
        for p in [*req.payouts, *req.returns]:
            if p.account_id not in put_in:
                raise BusError(ErrorCode.INVALID_AMOUNT, "pays an account that put nothing in", account_id=p.account_id)
        for r in req.returns:
            returned[r.account_id] = returned.get(r.account_id, 0) + r.amount
            if returned[r.account_id] > put_in[r.account_id]:
                raise BusError(
                    ErrorCode.INVALID_AMOUNT, "returns more than the account put in", account_id=r.account_id
                )
        escrow = self.balance(escrow_key(req.hand_id))
        total = sum(p.amount for p in req.payouts) + sum(r.amount for r in req.returns)
        if total != escrow:
            raise BusError(ErrorCode.INVALID_AMOUNT, "payouts must empty the escrow exactly", escrow=escrow, paid=total)
        out: list[TransferInfo] = []
        for n, (kind, p) in enumerate(
            [(TransferKind.PAYOUT, p) for p in req.payouts] + [(TransferKind.RETURN, r) for r in req.returns]
        ):
            dest, sid = self._destination(p.account_id, req.table_id, sources[p.account_id])
            out.append(
                self.move(
                    kind,
                    f"{kind.value}:{req.hand_id}:{n}",
                    escrow_key(req.hand_id),
                    dest,
                    p.amount,
                    account=self.account(p.account_id),
                    session_id=sid,
                    table_id=req.table_id,
                    hand_id=req.hand_id,
                )
            )
        self._end(hand, "settled")
        return HandOutcome(hand_id=req.hand_id, table_id=req.table_id, status="settled", transfers=out)

    def cancel_hand(self, table_id: str, hand_id: str, *, must_exist: bool) -> HandOutcome:
        w = self.w
        hand = w.get(hands, hand_id)
        if hand is None:
            raise BusError(ErrorCode.NOT_FOUND, "unknown hand (no chips committed)", hand_id=hand_id)
        if hand["table_id"] != table_id:
            raise BusError(ErrorCode.CONFLICT, "hand belongs to another table", hand_id=hand_id)
        if hand["status"] != "open":
            raise BusError(ErrorCode.HAND_CLOSED, f"hand already {hand['status']}", hand_id=hand_id)
        out: list[TransferInfo] = []
        for n, c in enumerate(c for c in self.contribs(hand_id) if c["amount"]):
            if c["source"] == "reserve":
                dest, sid = self._destination(c["account_id"], table_id, {"reserve"})
            else:
                dest, sid = available_key(c["account_id"]), None
            out.append(
                self.move(
                    TransferKind.REFUND,
                    f"refund:{hand_id}:{n}",
                    escrow_key(hand_id),
                    dest,
                    c["amount"],
                    account=self.account(c["account_id"]),
                    session_id=sid,
                    table_id=table_id,
                    hand_id=hand_id,
                )
            )
        self._end(hand, "cancelled")
        return HandOutcome(hand_id=hand_id, table_id=table_id, status="cancelled", transfers=out)

    def cash_out(self, account_id: str, table_id: str, amount: int | str, transfer_id: str) -> CashOutResult:
        acct = self.account(account_id)
        sess = self.open_session(account_id, table_id)
        if sess is None:
            raise BusError(
                ErrorCode.NOT_FOUND, "no open session at this table", account_id=account_id, table_id=table_id
            )
        rkey = reserve_key(account_id, table_id)
        reserved = self.balance(rkey)
        take = reserved if amount == "all" else int(amount)
        if take > reserved:
            raise BusError(ErrorCode.INSUFFICIENT_FUNDS, "cash-out above the reserve", reserved=reserved, amount=take)
        tid = None
        closed = reserved - take == 0
        if take > 0:
            tid = transfer_id
            self.move(
                TransferKind.CASH_OUT,
                tid,
                rkey,
                available_key(account_id),
                take,
                account=acct,
                session_id=sess["session_id"],
                table_id=table_id,
            )
        elif closed:  # an empty session closes with no transfer: announced, so limits release its exposure
            self.announce(
                TransferKind.CASH_OUT, transfer_id, 0, account=acct, session_id=sess["session_id"], table_id=table_id
            )
        self.w.put(
            sessions,
            {
                **sess,
                "cash_out": sess["cash_out"] + take,
                **({"status": "closed", "closed_at": self.w.now} if closed else {}),
            },
        )
        return CashOutResult(
            transfer_id=tid,
            session_id=sess["session_id"],
            amount=take,
            reserved=reserved - take,
            available=self.balance(available_key(account_id)),
            session_closed=closed,
        )

    def cancel_table(self, req: CancelTable) -> TableCancelled:
        w = self.w
        w.load_where(
            ("open-hands-of", req.table_id), hands, (hands.c.table_id == req.table_id) & (hands.c.status == "open")
        )
        outcomes = []
        for hand in sorted(w.scan(hands, table_id=req.table_id, status="open"), key=lambda h: h["hand_id"]):
            outcome = self.cancel_hand(req.table_id, hand["hand_id"], must_exist=True)
            end = CancelHand(table_id=req.table_id, hand_id=hand["hand_id"])
            w.put(
                commands,
                {
                    "key": f"end:{hand['hand_id']}",
                    "kind": "cancel",
                    "fingerprint": fingerprint(end, type(end).__name__),
                    "result": outcome.model_dump_json(),
                },
            )
            outcomes.append(outcome)
        w.load_where(
            ("open-sessions-at", req.table_id),
            sessions,
            (sessions.c.table_id == req.table_id) & (sessions.c.status == "open"),
        )
        cash_outs = []
        for sess in sorted(w.scan(sessions, table_id=req.table_id, status="open"), key=lambda s: s["session_id"]):
            cash_outs.append(
                self.cash_out(sess["account_id"], req.table_id, "all", f"cash_out:{sess['session_id']}:close")
            )
        return TableCancelled(table_id=req.table_id, hands=outcomes, cash_outs=cash_outs)
