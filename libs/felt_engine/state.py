"""The hand state: an immutable value.

Engine functions never mutate a :class:`HandState`; they return a new one plus the
operations performed, so the table can keep the old state when the wallet refuses
an escrow. Per-player tuples are indexed by *player index* ``i`` (0..n-1, clockwise
order of ``seats``); the public API speaks table seat numbers (``seats[i]``).

``deck`` (future cards), ``burns``, ``discards`` and other players' ``holes`` are
secret: publish only through :mod:`felt_engine.views`.

Why a named tuple: a step builds one new state per action, and a tuple of fields is
built in one call, several times faster than a frozen dataclass's per-field setting
(the engine's hot path; see docs/benchmarks.md). Fields read the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, TypeVar

from felt_contracts.names import Phase
from felt_engine.actions import LegalActions
from felt_engine.cards import Deck
from felt_engine.operations import Operation
from felt_engine.profiles import RulesProfile, Structure, TableStakes

__all__ = ["HandInfo", "HandState", "StateView", "Turn", "Work", "with_item"]


class HandInfo(NamedTuple):
    """What stays the same for a whole hand, shared by every state of that hand (one
    field of :class:`HandState` instead of ten: a step copies fewer fields)."""

    profile: RulesProfile
    stakes: TableStakes
    structure: Structure
    hand_id: str | None
    seats: tuple[int, ...]  # dealt-in table seats, clockwise
    n: int  # len(seats)
    button: int  # player index of the dealer button
    sb: int | None  # player index of the small blind (None: no blinds)
    bb: int | None
    starting_stacks: tuple[int, ...]
    reshuffle_seed: bytes | int
    unit: int  # the bet unit: the big blind, or the ante in ante-only games
    street_names: tuple[str, ...]  # profile.streets' names
    #: per player, the chips they may commit over the whole hand (forced bets included) when
    #: less than their stack bounds them: what the caller's wager caps still allow (the table
    #: asks limits at the deal); None: only the stacks bound the bets
    allowances: tuple[int, ...] | None = None


class Turn(NamedTuple):
    """A betting turn, worked out once when it starts: the actor's legal actions, the
    street total to match and the number of funded players (live, chips behind).
    ``apply`` checks the action against them instead of recomputing them."""

    legal: LegalActions
    to_match: int
    funded: int


class HandState(NamedTuple):
    info: HandInfo
    stacks: tuple[int, ...]  # behind (not yet committed)
    bets: tuple[int, ...]  # committed on the current street
    contrib: tuple[int, ...]  # committed in the whole hand (antes included)
    folded: tuple[bool, ...]
    acted: tuple[bool, ...]  # acted voluntarily on this street
    acted_level: tuple[int, ...]  # the bet to match right after their last action
    holes: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    burns: tuple[int, ...]
    discards: tuple[int, ...]  # draw: mucked cards not yet recycled
    deck: Deck
    street: int  # index into profile.streets
    phase: Phase
    actor: int | None  # player index whose turn it is
    turn_id: int  # increases whenever a new turn starts
    last_full_raise: int  # size of the last full bet/raise increment
    raise_count: int  # full bets+raises this street (fixed-limit cap)
    nominal_bet: int  # preflop: the BB a short big blind cannot reduce
    drawn: tuple[bool, ...]
    preactions: tuple[str | None, ...]
    leaving: tuple[bool, ...]
    shown: tuple[tuple[int, ...] | None, ...]
    showdown: bool
    payouts: tuple[int, ...] | None
    operations: tuple[Operation, ...]
    turn: Turn | None  # the current betting turn; None in the draw and once the hand is over

    def __repr__(self) -> str:  # never print secrets by accident
        return (
            f"HandState({self.rules_version}, hand={self.hand_id!r}, "
            f"street={self.street_name}, phase={self.phase}, actor={self.actor_seat}, "
            f"stacks={dict(zip(self.seats, self.stacks))})"
        )

    # -- the hand's constants ----------------------------------------------------
    @property
    def profile(self) -> RulesProfile:
        return self.info.profile

    @property
    def stakes(self) -> TableStakes:
        return self.info.stakes

    @property
    def structure(self) -> Structure:
        return self.info.structure

    @property
    def hand_id(self) -> str | None:
        return self.info.hand_id

    @property
    def seats(self) -> tuple[int, ...]:
        return self.info.seats

    @property
    def button(self) -> int:
        return self.info.button

    @property
    def sb(self) -> int | None:
        return self.info.sb

    @property
    def bb(self) -> int | None:
        return self.info.bb

    @property
    def starting_stacks(self) -> tuple[int, ...]:
        return self.info.starting_stacks

    @property
    def reshuffle_seed(self) -> bytes | int:
        return self.info.reshuffle_seed

    # -- convenience -------------------------------------------------------------
    @property
    def rules_version(self) -> str:
        return self.info.profile.rules_version

    @property
    def n(self) -> int:
        return self.info.n

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def street_name(self) -> str:
        return self.info.street_names[self.street]

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


T = TypeVar("T")


class StateView(Protocol):
    """What the betting rules read: a :class:`HandState` or a step's :class:`Work`
    (tuples in one, lists in the other)."""

    @property
    def info(self) -> HandInfo: ...
    @property
    def stacks(self) -> Sequence[int]: ...
    @property
    def bets(self) -> Sequence[int]: ...
    @property
    def contrib(self) -> Sequence[int]: ...
    @property
    def folded(self) -> Sequence[bool]: ...
    @property
    def acted(self) -> Sequence[bool]: ...
    @property
    def acted_level(self) -> Sequence[int]: ...
    @property
    def holes(self) -> Sequence[tuple[int, ...]]: ...
    @property
    def street(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def actor(self) -> int | None: ...
    @property
    def last_full_raise(self) -> int: ...
    @property
    def raise_count(self) -> int: ...
    @property
    def nominal_bet(self) -> int: ...
    @property
    def turn(self) -> Turn | None: ...


def with_item(values: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """``values`` with item ``i`` replaced."""
    return values[:i] + (value,) + values[i + 1 :]


_new = tuple.__new__


class Work:
    """A mutable working copy used inside one engine step (never escapes).

    The per-player fields a step changes in place are lists; the rest stay tuples and
    are replaced whole (``with_item``) on the rare steps that change them. Operations
    the step performs go to ``ops`` in order. ``freeze`` builds the next
    :class:`HandState` in one tuple construction (``ops``: ``tuple(self.ops)`` when the
    caller already has it). The copy in and out is spelled out field by field: it runs
    once per action, and a loop over field names costs several times more."""

    __slots__ = HandState._fields + ("n", "ops")

    info: HandInfo
    stacks: list[int]
    bets: list[int]
    contrib: list[int]
    folded: list[bool]
    acted: list[bool]
    acted_level: list[int]
    holes: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    burns: tuple[int, ...]
    discards: tuple[int, ...]
    deck: Deck
    street: int
    phase: str
    actor: int | None
    turn_id: int
    last_full_raise: int
    raise_count: int
    nominal_bet: int
    drawn: tuple[bool, ...]
    preactions: list[str | None]
    leaving: tuple[bool, ...]
    shown: tuple[tuple[int, ...] | None, ...]
    showdown: bool
    payouts: tuple[int, ...] | None
    operations: tuple[Operation, ...]
    turn: Turn | None
    n: int
    ops: list[Operation]

    def __init__(self, st: HandState) -> None:
        (
            self.info,
            stacks,
            bets,
            contrib,
            folded,
            acted,
            acted_level,
            self.holes,
            self.board,
            self.burns,
            self.discards,
            self.deck,
            self.street,
            self.phase,
            self.actor,
            self.turn_id,
            self.last_full_raise,
            self.raise_count,
            self.nominal_bet,
            self.drawn,
            preactions,
            self.leaving,
            self.shown,
            self.showdown,
            self.payouts,
            self.operations,
            self.turn,
        ) = st
        self.stacks = list(stacks)
        self.bets = list(bets)
        self.contrib = list(contrib)
        self.folded = list(folded)
        self.acted = list(acted)
        self.acted_level = list(acted_level)
        self.preactions = list(preactions)
        self.n = self.info.n
        self.ops = []

    def freeze(self, ops: tuple[Operation, ...] | None = None) -> HandState:
        if ops is None:
            ops = tuple(self.ops)
        return _new(
            HandState,
            (
                self.info,
                tuple(self.stacks),
                tuple(self.bets),
                tuple(self.contrib),
                tuple(self.folded),
                tuple(self.acted),
                tuple(self.acted_level),
                self.holes,
                self.board,
                self.burns,
                self.discards,
                self.deck,
                self.street,
                self.phase,
                self.actor,
                self.turn_id,
                self.last_full_raise,
                self.raise_count,
                self.nominal_bet,
                self.drawn,
                tuple(self.preactions),
                self.leaving,
                self.shown,
                self.showdown,
                self.payouts,
                self.operations + ops,
                self.turn,
            ),
        )
