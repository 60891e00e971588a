"""Risk allowed but not counted yet. The counters come from the wallet's transfer events, which
arrive after the check that allowed them: without holds, parallel checks of one owner all read
the same counters and together pass a cap (six joins at once under a cap that admits two). So
the holding checks (`hold=True`: the table's, just before it takes the risk) of one owner run one
at a time, and a passing `buy_in` or `wager` one holds its amounts until the wallet's matching
transfer is counted, a passing `start_hand` holds its hand (and forced bets) until a commit of
that hand is counted — the next hand's check must not miss a hand just dealt — or for `ttl` seconds (the transfer was refused or never made: holding too
long only refuses, never admits, too much). A start_hand check with the seat's stack (a buy-in
table) holds the hand's whole allowance against the wager caps, until the hand's settlement (its
commits, one per dealt seat) is counted, or `hand_ttl` seconds.

Holds live in the process: one limits process per room (a second replica would need them in
the database).
"""

from __future__ import annotations

import asyncio
import itertools
import time
import weakref
from collections import deque
from dataclasses import dataclass

from felt_contracts.limits import CheckKind, LimitName, Scope
from felt_contracts.wallet import TransferKind

#: the transfer that counts what a check of this kind allowed
COUNTED_BY = {CheckKind.BUY_IN: TransferKind.BUY_IN, CheckKind.WAGER: TransferKind.COMMIT}
SESSION_LIMITS = frozenset({LimitName.SESSION_HANDS, LimitName.SESSION_WAGER})


@dataclass(slots=True, eq=False)
class Hold:
    expires: float
    transfer: TransferKind
    owner_id: str
    participant_id: str | None
    session_id: str | None
    amount: int
    wants: dict[LimitName, int]
    hand_id: str | None = None  # a start_hand hold: released when the hand is counted
    released: bool = False  # counted before it expired (it leaves the expiry queue when due)
    order: int = 0  # when it was added, among the holds of this process

    def keys(self) -> list[tuple[Scope, str]]:
        """The counter scopes it is held against: its owner's, and its participant's."""
        if self.participant_id is None:
            return [(Scope.OWNER, self.owner_id)]
        return [(Scope.OWNER, self.owner_id), (Scope.PARTICIPANT, self.participant_id)]


Key = tuple[Scope, str]  # a counter scope: (owner, id) or (participant, id)


class Holds:
    """Live holds indexed by counter scope, so a check reads only its own scopes' holds (one
    list of every hold of the room cost a third of limits' CPU at 100 tables), and expired
    by a queue in the order they were added (one ttl: the order they expire).

    What a scope holds is kept as running sums (per limit; a session limit per session too),
    and a scope's start_hand holds by hand: a check costs the same however many holds its
    scope has (an owner running 600 agents had hundreds, each summed for each check)."""

    def __init__(self, ttl: float, hand_ttl: float | None = None) -> None:
        self.ttl = ttl
        self.hand_ttl = ttl if hand_ttl is None else hand_ttl
        self._queue: deque[Hold] = deque()
        self._hand_queue: deque[Hold] = deque()  # allowances: a ttl of their own, so a queue of their own
        self._added = itertools.count()
        self._of: dict[Key, list[Hold]] = {}
        #: (scope, limit, session id for a session limit, else None) -> what its live holds want
        self._sums: dict[tuple[Key, LimitName, str | None], int] = {}
        self._by_hand: dict[tuple[Key, str], list[Hold]] = {}
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, owner_id: str) -> asyncio.Lock:
        """The lock the checks of one owner take in turn (dropped when nobody holds it)."""
        lock = self._locks.get(owner_id)
        if lock is None:
            lock = self._locks[owner_id] = asyncio.Lock()
        return lock

    @staticmethod
    def _key(scope: Scope, scope_id: str) -> Key:
        return (Scope.OWNER if scope is Scope.OWNER else Scope.PARTICIPANT, scope_id)

    def _expire(self) -> None:
        now = time.monotonic()
        for queue in (self._queue, self._hand_queue):
            while queue and queue[0].expires <= now:
                self._release(queue.popleft())

    def _of_scope(self, scope: Scope, scope_id: str) -> list[Hold]:
        """The live holds against a counter scope (owner, or participant), oldest first."""
        self._expire()
        return self._of.get(self._key(scope, scope_id), [])

    @staticmethod
    def _sum_keys(key: Key, hold: Hold) -> list[tuple[tuple[Key, LimitName, str | None], int]]:
        return [
            ((key, limit, hold.session_id if limit in SESSION_LIMITS else None), amount)
            for limit, amount in hold.wants.items()
        ]

    def _release(self, hold: Hold) -> None:
        if hold.released:
            return
        hold.released = True
        for key in hold.keys():
            holds = self._of[key]
            holds.remove(hold)  # by identity (eq=False)
            if not holds:
                del self._of[key]
            for sum_key, amount in self._sum_keys(key, hold):
                left = self._sums[sum_key] - amount
                if left:
                    self._sums[sum_key] = left
                else:
                    del self._sums[sum_key]
            if hold.hand_id is not None:
                of_hand = self._by_hand[key, hold.hand_id]
                of_hand.remove(hold)
                if not of_hand:
                    del self._by_hand[key, hold.hand_id]

    def _add(self, hold: Hold, queue: deque[Hold] | None = None) -> None:
        hold.order = next(self._added)
        (self._queue if queue is None else queue).append(hold)
        for key in hold.keys():
            self._of.setdefault(key, []).append(hold)
            for sum_key, amount in self._sum_keys(key, hold):
                self._sums[sum_key] = self._sums.get(sum_key, 0) + amount
            if hold.hand_id is not None:
                self._by_hand.setdefault((key, hold.hand_id), []).append(hold)

    def held(
        self, scope: Scope, scope_id: str, limit: LimitName, session_id: str | None, hand_id: str | None = None
    ) -> int:
        """What is held against this scope's `limit` (a hand asked about again: not its own hold)."""
        self._expire()
        key = self._key(scope, scope_id)
        session = limit in SESSION_LIMITS
        total = self._sums.get((key, limit, session_id if session else None), 0)
        if hand_id is not None:  # its own hold does not count against itself
            total -= sum(
                h.wants.get(limit, 0)
                for h in self._by_hand.get((key, hand_id), ())
                if not session or h.session_id == session_id
            )
        return total

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
            self._add(Hold(time.monotonic() + self.ttl, transfer, owner_id, participant_id, session_id, amount, wants))

    def add_hand(
        self,
        owner_id: str,
        participant_id: str | None,
        session_id: str | None,
        hand_id: str,
        wants: dict[LimitName, int],
        *,
        long: bool = False,
    ) -> None:
        """A start_hand check passed: its hand counts until a commit of it is counted (asked
        again for the same hand: still one hold, with what it asked last). `long`: an allowance,
        held until the hand's settlement (`hand_ttl`)."""
        self._expire()
        for h in list(self._by_hand.get(((Scope.OWNER, owner_id), hand_id), ())):
            if h.participant_id == participant_id:
                self._release(h)
        ttl, queue = (self.hand_ttl, self._hand_queue) if long else (self.ttl, self._queue)
        hold = Hold(time.monotonic() + ttl, TransferKind.COMMIT, owner_id, participant_id, session_id, 0, wants)
        hold.hand_id = hand_id
        self._add(hold, queue)

    def hand_counted(self, account_id: str, hand_id: str) -> None:
        """A commit of this hand is in the counters: its start_hand hold is no longer needed."""
        self._expire()
        for h in list(self._by_hand.get(((Scope.PARTICIPANT, account_id), hand_id), ())):
            self._release(h)

    def counted(self, transfer: TransferKind, account_id: str, amount: int) -> None:
        """The wallet's transfer is in the counters now: release the oldest hold it matches."""
        candidates = [*self._of_scope(Scope.PARTICIPANT, account_id), *self._of_scope(Scope.OWNER, account_id)]
        matching = [h for h in candidates if h.hand_id is None and h.transfer is transfer and h.amount == amount]
        if matching:
            self._release(min(matching, key=lambda h: h.order))
