"""The hand state: an immutable value.

Engine functions never mutate a :class:`HandState`; they return a new one plus the
operations performed, so the table can keep the old state when the wallet refuses
an escrow. Per-player tuples are indexed by *player index* ``i`` (0..n-1, clockwise
order of ``seats``); the public API speaks table seat numbers (``seats[i]``).

``deck`` (future cards), ``burns``, ``discards`` and other players' ``holes`` are
secret: publish only through :mod:`felt_engine.views`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from felt_engine.cards import Deck
from felt_engine.operations import Operation
from felt_engine.profiles import RulesProfile, Structure, TableStakes

__all__ = ["HandState"]


@dataclass(frozen=True, slots=True, repr=False)
class HandState:
    profile: RulesProfile
    stakes: TableStakes
    structure: Structure
    hand_id: str | None
    seats: tuple[int, ...]          # dealt-in table seats, clockwise
    button: int                     # player index of the dealer button
    sb: int | None                  # player index of the small blind (None: no blinds)
    bb: int | None
    starting_stacks: tuple[int, ...]
    stacks: tuple[int, ...]         # behind (not yet committed)
    bets: tuple[int, ...]           # committed on the current street
    contrib: tuple[int, ...]        # committed in the whole hand (antes included)
    folded: tuple[bool, ...]
    acted: tuple[bool, ...]         # acted voluntarily on this street
    acted_level: tuple[int, ...]    # the bet to match right after their last action
    holes: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    burns: tuple[int, ...]
    discards: tuple[int, ...]       # draw: mucked cards not yet recycled
    deck: Deck
    street: int                     # index into profile.streets
    phase: str                      # "betting" | "draw" | "over"
    actor: int | None               # player index whose turn it is
    turn_id: int                    # increases whenever a new turn starts
    last_full_raise: int            # size of the last full bet/raise increment
    raise_count: int                # full bets+raises this street (fixed-limit cap)
    nominal_bet: int                # preflop: the BB a short big blind cannot reduce
    drawn: tuple[bool, ...]
    preactions: tuple[str | None, ...]
    leaving: tuple[bool, ...]
    shown: tuple[tuple[int, ...] | None, ...]
    showdown: bool
    payouts: tuple[int, ...] | None
    operations: tuple[Operation, ...]
    reshuffle_seed: bytes | int

    def __repr__(self) -> str:  # never print secrets by accident
        return (f"HandState({self.rules_version}, hand={self.hand_id!r}, "
                f"street={self.street_name}, phase={self.phase}, actor={self.actor_seat}, "
                f"stacks={dict(zip(self.seats, self.stacks))})")

    # -- convenience -------------------------------------------------------------
    @property
    def rules_version(self) -> str:
        return self.profile.rules_version

    @property
    def n(self) -> int:
        return len(self.seats)

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def street_name(self) -> str:
        return self.profile.streets[self.street].name

    @property
    def actor_seat(self) -> int | None:
        return None if self.actor is None else self.seats[self.actor]

    @property
    def button_seat(self) -> int:
        return self.seats[self.button]

    @property
    def pot(self) -> int:
        """Chips in the middle (0 once settled)."""
        return 0 if self.payouts is not None else sum(self.contrib)

    def index_of(self, seat: int) -> int | None:
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    def stack_of(self, seat: int) -> int:
        return self.stacks[self.seats.index(seat)]

    def live_seats(self) -> tuple[int, ...]:
        return tuple(s for s, f in zip(self.seats, self.folded) if not f)


FIELDS = tuple(f.name for f in fields(HandState))
_LISTS = frozenset({
    "stacks", "bets", "contrib", "folded", "acted", "acted_level", "holes", "board",
    "burns", "discards", "drawn", "preactions", "leaving", "shown",
})


class Work:
    """A mutable working copy used inside one engine step (never escapes)."""

    __slots__ = FIELDS + ("ops",)

    def __init__(self, st: HandState) -> None:
        for name in FIELDS:
            v = getattr(st, name)
            setattr(self, name, list(v) if name in _LISTS else v)
        self.ops: list[Operation] = []

    n = property(lambda self: len(self.seats))

    def emit(self, op: Operation) -> None:
        self.ops.append(op)

    def freeze(self) -> HandState:
        kw = {}
        for name in FIELDS:
            v = getattr(self, name)
            kw[name] = tuple(v) if name in _LISTS else v
        kw["operations"] = self.operations + tuple(self.ops)
        return HandState(**kw)
