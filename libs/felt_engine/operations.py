"""Operation records: the hand is its own log (PokerKit-style).

Every engine step returns the operations it performed, in order, and appends them
to ``HandState.operations``. The table turns them into events and the wallet
escrow (see :func:`chips_committed`); the hand history (PHH) is rebuilt from them.

Some operations carry private cards (``deal_hole``, ``burn``, ``draw``); never
publish an operation without passing it through :mod:`felt_engine.views`.

Kinds and fields (``seat`` is the table seat number):

=============== ==================================================================
``hand_start``  ``detail`` = rulesVersion, ``seat`` = button seat
``post_ante``   ``seat``, ``amount`` (chips moved stack -> pot), ``all_in``, ``detail``
                "" (every player antes) | bb_ante | button_ante (the table's ante)
``post_blind``  ``seat``, ``amount``, ``to`` (street total), ``detail`` sb|bb|straddle
``deal_hole``   ``seat``, ``cards`` (PRIVATE)
``burn``        ``cards`` (PRIVATE)
``deal_board``  ``street``, ``cards``
``street``      ``street`` (a betting round or draw round begins)
``fold``        ``seat``, ``detail`` = ""|timeout|leave|preaction
``check``       ``seat``, ``detail``
``call``        ``seat``, ``amount`` added, ``to`` street total, ``all_in``
``bet``         ``seat``, ``amount`` added, ``to`` street total, ``all_in``
``raise``       ``seat``, ``amount`` added, ``to`` street total, ``all_in``
``draw``        ``seat``, ``discarded`` and ``cards`` (new) PRIVATE, ``amount`` = count
``show``        ``seat``, ``cards`` (public), ``detail`` showdown|voluntary
``award``       ``seat``, ``amount`` paid, ``pot`` index, ``detail`` win|split|uncalled|refund
``hand_end``    ``detail`` showdown|uncontested
=============== ==================================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from felt_contracts.names import OperationKind

__all__ = ["Operation", "COMMIT_KINDS", "PRIVATE_KINDS", "chips_committed", "op"]

COMMIT_KINDS = frozenset({"post_ante", "post_blind", "call", "bet", "raise"})
PRIVATE_KINDS = frozenset({"deal_hole", "burn", "draw"})


class Operation(NamedTuple):
    """One thing a step did (a named tuple: many are built per action)."""

    kind: OperationKind
    seat: int | None = None
    amount: int = 0
    to: int | None = None
    cards: tuple[int, ...] = ()
    discarded: tuple[int, ...] = ()
    street: str | None = None
    all_in: bool = False
    pot: int | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, object]:
        """All fields (including private cards): for the owner/hand history only."""
        return {
            "kind": self.kind,
            "seat": self.seat,
            "amount": self.amount,
            "to": self.to,
            "cards": list(self.cards),
            "discarded": list(self.discarded),
            "street": self.street,
            "allIn": self.all_in,
            "pot": self.pot,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Operation:
        """The inverse of :meth:`to_dict` (stored hand records)."""
        return cls(
            d["kind"],
            d["seat"],
            d["amount"],
            d["to"],
            tuple(d["cards"]),
            tuple(d["discarded"]),
            d["street"],
            d["allIn"],
            d["pot"],
            d["detail"],
        )


_new = tuple.__new__


def op(
    kind: str,
    seat: int | None = None,
    amount: int = 0,
    to: int | None = None,
    cards: tuple[int, ...] = (),
    street: str | None = None,
    all_in: bool = False,
    detail: str = "",
    discarded: tuple[int, ...] = (),
    pot: int | None = None,
) -> Operation:
    """An :class:`Operation` built without the named tuple's generated ``__new__``
    (several times cheaper; the engine builds one or more per action)."""
    return _new(Operation, (kind, seat, amount, to, cards, discarded, street, all_in, pot, detail))


def chips_committed(ops: Iterable[Operation]) -> dict[int, int]:
    """Chips each seat moves from its stack into the hand by these operations: exactly
    what the wallet must escrow before the step is accepted."""
    out: dict[int, int] = {}
    for op in ops:
        if op.kind in COMMIT_KINDS and op.amount and op.seat is not None:  # commits always name a seat
            out[op.seat] = out.get(op.seat, 0) + op.amount
    return out
