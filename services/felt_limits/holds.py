"""Risk allowed but not counted yet. The counters come from the wallet's transfer events, which
arrive after the check that allowed them: without holds, parallel checks of one owner all read
the same counters and together pass a cap (six joins at once under a cap that admits two). So
the holding checks (`hold=True`: the table's, just before it takes the risk) of one owner run one
at a time, and a passing `buy_in` or `wager` one holds its amounts until the wallet's matching
transfer is counted, a passing `start_hand` holds its hand (and forced bets) until a commit of
that hand is counted — the next hand's check must not miss a hand just dealt — or for `ttl` seconds (the transfer was refused or never made: holding too
long only refuses, never admits, too much).

Holds live in the process: one limits process per room (a second replica would need them in
the database).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass

from felt_contracts.limits import CheckKind, LimitName, Scope
from felt_contracts.wallet import TransferKind

#: the transfer that counts what a check of this kind allowed
COUNTED_BY = {CheckKind.BUY_IN: TransferKind.BUY_IN, CheckKind.WAGER: TransferKind.COMMIT}
SESSION_LIMITS = frozenset({LimitName.SESSION_HANDS, LimitName.SESSION_WAGER})


@dataclass(slots=True)
class Hold:
    expires: float
    transfer: TransferKind
    owner_id: str
    participant_id: str | None
    session_id: str | None
    amount: int
    wants: dict[LimitName, int]
    hand_id: str | None = None  # a start_hand hold: released when the hand is counted

    def covers(self, scope: Scope, scope_id: str) -> bool:
        return scope_id == (self.owner_id if scope is Scope.OWNER else self.participant_id)


class Holds:
    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self._holds: list[Hold] = []
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, owner_id: str) -> asyncio.Lock:
        """The lock the checks of one owner take in turn (dropped when nobody holds it)."""
        lock = self._locks.get(owner_id)
        if lock is None:
            lock = self._locks[owner_id] = asyncio.Lock()
        return lock

    def _live(self) -> list[Hold]:
        now = time.monotonic()
        if self._holds and self._holds[0].expires <= now:
            self._holds = [h for h in self._holds if h.expires > now]
        return self._holds

    def held(
        self, scope: Scope, scope_id: str, limit: LimitName, session_id: str | None, hand_id: str | None = None
    ) -> int:
        """What is held against this scope's `limit` (a hand asked about again: not its own hold)."""
        return sum(
            h.wants.get(limit, 0)
            for h in self._live()
            if h.covers(scope, scope_id)
            and (limit not in SESSION_LIMITS or h.session_id == session_id)
            and (hand_id is None or h.hand_id != hand_id)
        )

    def add(
        self,
        kind: CheckKind,
        owner_id: str,
        participant_id: str | None,
        session_id: str | None,
        amount: int | None,
        wants: dict[LimitName, int],
    ) -> None:
        transfer = COUNTED_BY.get(kind)
        if transfer is not None and amount:
            self._holds.append(
                Hold(time.monotonic() + self.ttl, transfer, owner_id, participant_id, session_id, amount, wants)
            )

    def add_hand(
        self,
        owner_id: str,
        participant_id: str | None,
        session_id: str | None,
        hand_id: str,
        wants: dict[LimitName, int],
    ) -> None:
        """A start_hand check passed: its hand counts until a commit of it is counted (asked
        again for the same hand: still one hold)."""
        if not any(h.hand_id == hand_id and h.participant_id == participant_id for h in self._live()):
            self._holds.append(
                Hold(
                    time.monotonic() + self.ttl,
                    TransferKind.COMMIT,
                    owner_id,
                    participant_id,
                    session_id,
                    0,
                    wants,
                    hand_id,
                )
            )

    def hand_counted(self, account_id: str, hand_id: str) -> None:
        """A commit of this hand is in the counters: its start_hand hold is no longer needed."""
        self._holds = [h for h in self._live() if not (h.hand_id == hand_id and account_id == h.participant_id)]

    def counted(self, transfer: TransferKind, account_id: str, amount: int) -> None:
        """The wallet's transfer is in the counters now: release the hold it matches."""
        for i, h in enumerate(self._live()):
            if (
                h.hand_id is None
                and h.transfer is transfer
                and h.amount == amount
                and account_id in (h.participant_id, h.owner_id)
            ):
                del self._holds[i]
                return
