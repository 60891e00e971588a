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

from typing import NamedTuple

from felt_engine.cards import Deck
from felt_engine.operations import Operation
from felt_engine.profiles import RulesProfile, Structure, TableStakes

__all__ = ["HandState", "Work", "with_item"]


class HandState(NamedTuple):
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


FIELDS = HandState._fields
# Fields a step changes in place (copied to lists in a Work); the rest stay tuples and
# are replaced whole (``with_item``) on the rare steps that change them.
_LISTS = frozenset({"stacks", "bets", "contrib", "folded", "acted", "acted_level", "preactions"})


def with_item(values: tuple, i: int, value: object) -> tuple:
    """``values`` with item ``i`` replaced."""
    return values[:i] + (value,) + values[i + 1:]


def _compile(name: str, lines: list[str], env: dict) -> object:
    """Straight-line code for a per-field loop: the copy in and out of a step is the
    engine's hot path (one per action), and attribute-by-name loops cost several times
    more than plain assignments (the same technique :mod:`dataclasses` uses)."""
    namespace: dict = {}
    exec("\n".join(lines), env, namespace)  # noqa: S102 - generated from FIELDS only
    return namespace[name]


def _init_lines() -> list[str]:
    lines = ["def __init__(self, st):"]
    for name in FIELDS:
        lines.append(f"    self.{name} = list(st.{name})" if name in _LISTS else f"    self.{name} = st.{name}")
    return lines + ["    self.n = len(st.seats)", "    self.ops = []"]


def _freeze_lines() -> list[str]:
    values = []
    for name in FIELDS:
        if name == "operations":
            values.append("self.operations + tuple(self.ops)")
        else:
            values.append(f"tuple(self.{name})" if name in _LISTS else f"self.{name}")
    return ["def freeze(self):", f"    return _new(HandState, ({', '.join(values)}))"]


class Work:
    """A mutable working copy used inside one engine step (never escapes).

    ``freeze`` builds the next :class:`HandState` in one tuple construction; the values
    are the ones ``HandState(**fields)`` would hold."""

    __slots__ = FIELDS + ("n", "ops")

    __init__ = _compile("__init__", _init_lines(), {})
    freeze = _compile("freeze", _freeze_lines(), {"_new": tuple.__new__, "HandState": HandState})

    def emit(self, op: Operation) -> None:
        self.ops.append(op)
