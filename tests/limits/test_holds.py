"""Holds indexed by scope answer exactly as one list of every hold did (the oracle below is
that list, as limits kept it before the index): random adds, start_hand holds, counted
transfers and hands, and the clock moving past the ttl, with `held` compared for every scope,
limit, session and hand after each step."""

from __future__ import annotations

from dataclasses import dataclass
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from felt_contracts.limits import CheckKind, LimitName, Scope
from felt_contracts.wallet import TransferKind
from felt_limits import holds as holds_module
from felt_limits.holds import COUNTED_BY, SESSION_LIMITS, Holds

TTL = 10.0
OWNERS, PARTICIPANTS, SESSIONS, HANDS = ["o1", "o2"], ["p1", "p2", "p3"], ["s1", "s2", None], ["h1", "h2", "h3"]
#: a participant belongs to one owner (an owner may also check without a participant)
SEATS = [("o1", "p1"), ("o1", "p2"), ("o2", "p3")]


@dataclass
class Listed:
    expires: float
    transfer: TransferKind
    owner_id: str
    participant_id: str | None
    session_id: str | None
    amount: int
    wants: dict[LimitName, int]
    hand_id: str | None = None


class ListHolds:
    """Every hold of the process in one list, scanned for every question."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock
        self.holds: list[Listed] = []

    def live(self) -> list[Listed]:
        self.holds = [h for h in self.holds if h.expires > self.clock[0]]
        return self.holds

    def held(self, scope: Scope, scope_id: str, limit: LimitName, session: str | None, hand: str | None) -> int:
        return sum(
            h.wants.get(limit, 0)
            for h in self.live()
            if scope_id == (h.owner_id if scope is Scope.OWNER else h.participant_id)
            and (limit not in SESSION_LIMITS or h.session_id == session)
            and (hand is None or h.hand_id != hand)
        )

    def add(self, kind: CheckKind, owner: str, pid: str | None, session: str | None, amount: int, wants: dict) -> None:
        if (transfer := COUNTED_BY.get(kind)) is not None and amount:
            self.holds.append(Listed(self.clock[0] + TTL, transfer, owner, pid, session, amount, wants))

    def add_hand(self, owner: str, pid: str | None, session: str | None, hand: str, wants: dict) -> None:
        """Asked again for the same hand: one hold, with what it asked last."""
        self.holds = [h for h in self.live() if not (h.hand_id == hand and h.participant_id == pid)]
        self.holds.append(Listed(self.clock[0] + TTL, TransferKind.COMMIT, owner, pid, session, 0, wants, hand))

    def hand_counted(self, account: str, hand: str) -> None:
        self.holds = [h for h in self.live() if not (h.hand_id == hand and account == h.participant_id)]

    def counted(self, transfer: TransferKind, account: str, amount: int) -> None:
        for i, h in enumerate(self.live()):
            if (
                h.hand_id is None
                and h.transfer is transfer
                and h.amount == amount
                and account in (h.participant_id, h.owner_id)
            ):
                del self.holds[i]
                return


wants = st.dictionaries(st.sampled_from(list(LimitName)), st.integers(1, 50), max_size=3)
step = st.one_of(
    st.tuples(
        st.just("add"),
        st.sampled_from([CheckKind.BUY_IN, CheckKind.WAGER, CheckKind.CONTINUE_SESSION]),
        st.sampled_from([*SEATS, ("o1", None), ("o2", None)]),
        st.sampled_from(SESSIONS),
        st.integers(0, 2),
        wants,
    ).map(lambda t: (t[0], t[1], *t[2], *t[3:])),
    st.tuples(
        st.just("add_hand"),
        st.sampled_from(SEATS),  # start_hand checks always name the participant
        st.sampled_from(SESSIONS),
        st.sampled_from(HANDS),
        wants,
    ).map(lambda t: (t[0], *t[1], *t[2:])),
    st.tuples(st.just("hand_counted"), st.sampled_from(PARTICIPANTS), st.sampled_from(HANDS)),
    st.tuples(
        st.just("counted"),
        st.sampled_from([TransferKind.BUY_IN, TransferKind.COMMIT]),
        st.sampled_from(OWNERS + PARTICIPANTS),
        st.integers(1, 2),
    ),
    st.tuples(st.just("tick"), st.floats(0.5, 6.0)),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(step, max_size=40))
def test_indexed_holds_answer_as_the_list_of_every_hold(steps: list[tuple]) -> None:
    clock = [1000.0]
    with patch.object(holds_module.time, "monotonic", lambda: clock[0]):
        indexed, listed = Holds(TTL), ListHolds(clock)
        for name, *args in steps:
            if name == "tick":
                clock[0] += args[0]
                continue
            getattr(indexed, name)(*args)
            getattr(listed, name)(*args)
            for scope, ids in ((Scope.OWNER, OWNERS), (Scope.PARTICIPANT, PARTICIPANTS)):
                for scope_id in ids:
                    for limit in LimitName:
                        for session in SESSIONS:
                            for hand in [None, *HANDS]:
                                expected = listed.held(scope, scope_id, limit, session, hand)
                                assert indexed.held(scope, scope_id, limit, session, hand) == expected, (name, args)
