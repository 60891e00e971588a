"""Every wallet call of a table: buy-ins, escrow commits, settlement, cancellation, cash-outs.

The wallet holds every chip. At a buy-in table a player's reserve is the hold: nothing moves
while a hand runs, and the hand's settlement moves its wagers, payouts and returns at once.
Where the balance plays (`ante-nl-1`) a step's chips are committed here BEFORE the table keeps
the new state. Every transfer id is derived from what it is for, never drawn fresh: commits from the
hand (`hand_id:n`), a hand's end from the hand, a buy-in from the command (or the hand, for an
auto-rebuy), a cash-out from the session; so a call resent after a lost reply moves nothing twice.
"""

from __future__ import annotations

import asyncio

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.wallet import (
    Balance,
    BalanceQuery,
    BuyIn,
    BuyInResult,
    CancelHand,
    CancelTable,
    CashOut,
    CashOutResult,
    Commit,
    CommitResult,
    HandOutcome,
    Settle,
    TableCancelled,
    chips_account,
)
from felt_engine.hand import Step
from felt_engine.operations import COMMIT_KINDS
from felt_runtime.bus import BusError
from felt_table.ports.deps import Deps
from felt_client.backoff import Backoff
from felt_table.ports.retry import retryable, until_answered

#: the end of a hand asked of the wallet: settle a finished hand, cancel an aborted one
HandEnd = Settle | CancelHand


class Escrow:
    def __init__(self, table_id: str, deps: Deps, balance_plays: bool, chips: str | None = None) -> None:
        self.tid = table_id
        self.deps = deps
        self.balance_plays = balance_plays  # ante-nl-1: chips come from the available balance
        self.chips = chips  # a tournament table: the tournament whose chips the stacks are
        self.commit_seq = 0  # commits made in the current hand

    def account(self, pid: str) -> str:
        """The wallet account a participant's stack here is in: their own, or at a tournament
        table their chips account of that tournament (the wallet's paths are the same)."""
        return pid if self.chips is None else chips_account(self.chips, pid)

    def new_hand(self) -> None:
        self.commit_seq = 0

    async def balance(self, pid: str) -> Balance:
        return await self.deps.ask(subjects.WALLET_BALANCE, BalanceQuery(account_id=self.account(pid)), Balance)

    async def buy_in(self, pid: str, amount: int, lo: int, hi: int, key: str) -> BuyInResult:
        """`key`: what this buy-in is for (the join command's id, or the hand for a rebuy)."""
        return await self.deps.ask(
            subjects.WALLET_BUY_IN,
            BuyIn(
                message_id=f"{self.tid}:{pid}:{key}"[:200],
                account_id=self.account(pid),
                table_id=self.tid,
                amount=amount,
                min_buy_in=lo,
                max_buy_in=hi,
            ),
            BuyInResult,
        )

    async def commit(
        self, step: Step, hand_id: str, participants: dict[int, str], plays: dict[int, str | None] | None = None
    ) -> None:
        """Where the balance plays (`ante-nl-1`): commit every chip these operations move into the
        pot before the step is accepted (`plays`: each seat's play session, named on its commits
        for limits). At a buy-in table nothing moves during the hand (the reserve is the hold): its
        chips move once, with the settlement (`Settle.wagers`), so this does nothing there.

        A step moving several seats' chips (the forced bets) sends its commits together, so the
        wallet's group commit takes them in one transaction; each still has its own transfer id,
        and if any is refused the caller cancels the hand (refunding the others)."""
        if not self.balance_plays:
            return
        ops = [(op.seat, op.amount) for op in step.ops if op.kind in COMMIT_KINDS and op.amount and op.seat is not None]
        base = self.commit_seq
        commits = [
            self.deps.ask(
                subjects.WALLET_COMMIT,
                Commit(
                    message_id=f"{hand_id}:{base + offset}",
                    account_id=self.account(participants[seat]),
                    table_id=self.tid,
                    hand_id=hand_id,
                    seq=base + offset,
                    amount=amount,
                    from_available=self.balance_plays,
                    session_id=(plays or {}).get(seat),
                ),
                CommitResult,
            )
            for offset, (seat, amount) in enumerate(ops)
        ]
        if len(commits) == 1:
            try:
                await commits[0]
            except BusError as exc:
                if retryable(exc):  # it may have arrived: a cancel must refund it
                    self.commit_seq += 1
                raise
            self.commit_seq += 1
            return
        outcomes = await asyncio.gather(*commits, return_exceptions=True)
        refused = [refusal for refusal in outcomes if isinstance(refusal, BaseException)]
        if len(refused) < len(outcomes) or any(retryable(refusal) for refusal in refused):  # a cancel must refund it
            self.commit_seq = base + len(outcomes)
        if refused:
            raise refused[0]

    async def end(self, req: HandEnd) -> None:
        """A hand's end (see `felt_table.commands.ending`). A cancel that finds no hand (no chip arrived)
        or a hand already ended has nothing left to do."""
        if isinstance(req, Settle):
            await self.deps.ask(subjects.WALLET_SETTLE, self._in_accounts(req), HandOutcome)
            return
        try:
            await self.deps.ask(subjects.WALLET_CANCEL_HAND, req, HandOutcome)
        except BusError as exc:
            if exc.code not in (ErrorCode.HAND_CLOSED, ErrorCode.NOT_FOUND):
                raise

    def _in_accounts(self, req: Settle) -> Settle:
        """The settlement with each participant named by their wallet account here."""
        if self.chips is None:
            return req
        return req.model_copy(
            update={
                name: [m.model_copy(update={"account_id": self.account(m.account_id)}) for m in getattr(req, name)]
                for name in ("payouts", "returns", "wagers")
            }
        )

    async def cash_out(self, pid: str, session_id: str) -> int:
        """Return the seat's whole reserve to the account (one cash-out per session: it closes
        it); 0 when there is no open session."""
        try:
            res = await self.deps.ask(
                subjects.WALLET_CASH_OUT,
                CashOut(message_id=f"{session_id}:out", account_id=self.account(pid), table_id=self.tid),
                CashOutResult,
            )
        except BusError as exc:
            if exc.code is not ErrorCode.NOT_FOUND:
                raise
            return 0
        return res.amount

    async def cancel_table(self, message_id: str, backoff: Backoff) -> TableCancelled:
        """Restart policy: cancel every open hand of the table and cash out every reserve (waits for the wallet)."""
        return await until_answered(
            lambda: self.deps.ask(
                subjects.WALLET_CANCEL_TABLE, CancelTable(message_id=message_id, table_id=self.tid), TableCancelled
            ),
            backoff,
        )
