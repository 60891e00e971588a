"""Action input and the legal-actions answer (agent API shape).

Internal model: ``Action(kind, amount)`` where ``amount`` of ``bet``/``raiseTo`` is
the *total street commitment* (the Clawbet rules). Values are named tuples (built once per
action on the engine's hot path; immutable, compared by value). Kinds use the agent-API spelling:
``fold``, ``check``, ``call``, ``bet``, ``raiseTo``, ``allIn``, plus ``draw`` (five-card
draw: ``cards`` = the cards to discard, possibly empty = stand pat). The ante-nl-1
convention (``hit``, ``bet`` = chips to add now) is translated at the edge by
:func:`felt_engine.betting.from_add_now`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, TypeAlias

from felt_contracts.names import PRE_ACTIONS

__all__ = ["Action", "Bounds", "LegalActions", "ACTION_KINDS", "PREACTIONS"]

ACTION_KINDS = frozenset({"fold", "check", "call", "bet", "raiseTo", "allIn", "draw"})
PREACTIONS = frozenset(PRE_ACTIONS)
AMOUNT_KINDS = frozenset({"bet", "raiseTo"})  # the actions that take an amount (and need one)
#: a value as a caller gave it, before the engine checked it (a named alias: mypyc builds the
#: named tuple's annotations from the module's globals, where the builtin `object` is not)
Given: TypeAlias = object


def shape_problem(kind: str, amount: int | None, has_cards: bool) -> str | None:
    """The action's own shape (the Clawbet rules' action JSON): only `bet`/`raiseTo` take an amount, and
    they need one; only `draw` takes cards. None when the shape is right."""
    if kind in AMOUNT_KINDS and amount is None:
        return f"{kind} needs an amount"
    if kind not in AMOUNT_KINDS and amount is not None:
        return f"{kind} takes no amount"
    if kind != "draw" and has_cards:
        return "only draw takes cards"
    return None


class Action(NamedTuple):
    kind: str
    # as the caller gave them (int chips, the cards to discard): `apply` refuses anything else
    # with its own code; compiled (docs/development.md), reading a field declared `int | None`
    # would refuse a float with a TypeError first
    amount: Given = None
    cards: Sequence[int] = ()

    @staticmethod
    def fold() -> Action:
        return Action("fold")

    @staticmethod
    def check() -> Action:
        return Action("check")

    @staticmethod
    def call() -> Action:
        return Action("call")

    @staticmethod
    def bet(to: object) -> Action:
        return Action("bet", to)

    @staticmethod
    def raise_to(to: object) -> Action:
        return Action("raiseTo", to)

    @staticmethod
    def all_in() -> Action:
        return Action("allIn")

    @staticmethod
    def draw(discard: Iterable[int] = ()) -> Action:
        return Action("draw", None, tuple(discard))


class Bounds(NamedTuple):
    min: int
    max: int

    def to_dict(self) -> dict[str, int]:
        return {"min": self.min, "max": self.max}


class LegalActions(NamedTuple):
    """What ``seat`` may do now. Everything false/None when it is not their turn.

    ``call`` and ``all_in`` are chips to add now (capped by the stack); ``bet`` and
    ``raise_to`` bounds are total street commitments; ``all_in_to`` is the street
    total after an all-in. ``draw`` is the maximum number of discards (draw phase).

    ``bet_add`` (profiles with ``amount_convention="add_now"``, i.e. ``ante-nl-1``,
    where ``add_now`` is True): the same bet/raise range as chips to add now, the
    ``N`` of a ``bet N`` that bets or raises (``raise_to``/``bet`` minus the chips the
    player already has in on this street). ``to_dict`` writes it as ``betAdd`` only
    for those profiles.
    """

    seat: int
    fold: bool = False
    check: bool = False
    call: int | None = None
    bet: Bounds | None = None
    raise_to: Bounds | None = None
    all_in: int | None = None
    all_in_to: int | None = None
    draw: int | None = None
    to_call: int = 0
    bet_add: Bounds | None = None
    add_now: bool = False

    @property
    def any(self) -> bool:
        return self.fold or self.check or self.draw is not None

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {
            "fold": self.fold,
            "check": self.check,
            "call": self.call,
            "bet": self.bet.to_dict() if self.bet else None,
            "raiseTo": self.raise_to.to_dict() if self.raise_to else None,
            "allIn": self.all_in,
        }
        if self.draw is not None:
            d["draw"] = {"min": 0, "max": self.draw}
        if self.add_now:
            d["betAdd"] = self.bet_add.to_dict() if self.bet_add else None
        return d
