"""Every wallet call of a table: buy-ins, escrow commits, settlement, cancellation, cash-outs.

The wallet holds every chip. A step's chips are committed here BEFORE the table keeps the new
state; transfer ids are derived from the hand (`hand_id:n`), so a retried call moves nothing twice.
"""

from __future__ import annotations

import asyncio
import uuid

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    Balance, BalanceQuery, BuyIn, BuyInResult, CancelHand, CancelTable, CashOut, CashOutResult, Commit, CommitResult,
    HandOutcome, Payout, Settle, TableCancelled,
)
from felt_engine.hand import Step
from felt_engine.operations import COMMIT_KINDS
from felt_runtime.bus import BusError
from felt_table.deps import Deps


class Escrow:
    def __init__(self, table_id: str, deps: Deps, balance_plays: bool) -> None:
        self.tid = table_id
        self.deps = deps
        self.balance_plays = balance_plays  # ante-nl-1: chips come from the available balance
        self.commit_seq = 0  # commits made in the current hand

    def new_hand(self) -> None:
        self.commit_seq = 0

    async def balance(self, pid: str) -> Balance:
        return await self.deps.ask(subjects.WALLET_BALANCE, BalanceQuery(account_id=pid), Balance)

    async def buy_in(self, pid: str, amount: int, lo: int, hi: int, why: str) -> BuyInResult:
        return await self.deps.ask(subjects.WALLET_BUY_IN, BuyIn(
            message_id=f"{self.tid}:{pid}:{why}:{uuid.uuid4().hex[:8]}", account_id=pid, table_id=self.tid,
            amount=amount, min_buy_in=lo, max_buy_in=hi), BuyInResult)

    async def commit(self, step: Step, hand_id: str, participants: dict[int, str]) -> None:
        """Commit every chip these operations move into the pot before the step is accepted.

        A step moving several seats' chips (the forced bets) sends its commits together, so the
        wallet's group commit takes them in one transaction; each still has its own transfer id,
        and if any is refused the caller cancels the hand (refunding the others)."""
        ops = [op for op in step.ops if op.kind in COMMIT_KINDS and op.amount]
        base = self.commit_seq
        commits = [self.deps.ask(subjects.WALLET_COMMIT, Commit(
            message_id=f"{hand_id}:{base + k}", account_id=participants[op.seat], table_id=self.tid, hand_id=hand_id,
            seq=base + k, amount=op.amount, from_available=self.balance_plays), CommitResult)
            for k, op in enumerate(ops)]
        if len(commits) == 1:
            await commits[0]
            self.commit_seq += 1
            return
        outcomes = await asyncio.gather(*commits, return_exceptions=True)
        refused = [x for x in outcomes if isinstance(x, BaseException)]
        if len(refused) < len(outcomes):  # something is in escrow: a cancel must refund it
            self.commit_seq = base + len(outcomes)
        if refused:
            raise refused[0]

    async def settle(self, hand_id: str, payouts: dict[str, int], returns: dict[str, int]) -> None:
        """The whole hand's payout in one request (`returns`: uncalled/refunded chips)."""
        await self.deps.ask(subjects.WALLET_SETTLE, Settle(
            message_id=f"{hand_id}:settle", table_id=self.tid, hand_id=hand_id,
            payouts=[Payout(account_id=a, amount=v) for a, v in payouts.items()],
            returns=[Payout(account_id=a, amount=v) for a, v in returns.items()]), HandOutcome)

    async def cancel_hand(self, hand_id: str) -> None:
        """Refund the hand's escrow to its contributors (nothing to do before the first commit)."""
        if self.commit_seq == 0:
            return
        try:
            await self.deps.ask(subjects.WALLET_CANCEL_HAND, CancelHand(
                message_id=f"{hand_id}:cancel", table_id=self.tid, hand_id=hand_id), HandOutcome)
        except BusError as exc:
            if exc.code is not ErrorCode.HAND_CLOSED:
                raise

    async def cash_out(self, pid: str) -> int:
        """Return the seat's whole reserve to the account; 0 when there is no open session."""
        try:
            res = await self.deps.ask(subjects.WALLET_CASH_OUT, CashOut(
                message_id=f"{self.tid}:{pid}:out:{uuid.uuid4().hex[:8]}", account_id=pid, table_id=self.tid),
                CashOutResult)
        except BusError as exc:
            if exc.code is not ErrorCode.NOT_FOUND:
                raise
            return 0
        return res.amount

    async def cancel_table(self, attempts: int) -> TableCancelled:
        """Restart policy: cancel every open hand of the table and cash out every reserve (waits for the wallet)."""
        for n in range(attempts):
            try:
                return await self.deps.ask(subjects.WALLET_CANCEL_TABLE, CancelTable(table_id=self.tid), TableCancelled)
            except BusError as exc:
                if exc.code is not ErrorCode.UNAVAILABLE or n == attempts - 1:
                    raise
                await asyncio.sleep(0.5)
        raise AssertionError("unreachable")
