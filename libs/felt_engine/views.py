"""Views derived from a hand state: plain dicts ready for JSON.

Privacy rules (tested in ``tests/engine/test_views.py``):

* A viewer sees their own hole cards; another player's cards only once revealed
  (``state.shown``: every live hand at showdown, or a voluntary ``show`` after the
  hand). Folded hands are never revealed by the engine.
* Deck order, the stub, burn cards and draw discards are never in any view.
* A hand won without showdown reveals no cards, and the unused board is never
  dealt so it cannot leak.

Cards are strings (``"As"``). ``viewer=None`` is the public (spectator) view.

:func:`seen_by` is the one statement of which cards of an operation a viewer may see; the
views here, the table's stored hand histories and its live events all go through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, NotRequired, TypedDict, TypeVar

from felt_contracts.names import Phase
from felt_engine import betting
from felt_engine.actions import LegalActions
from felt_engine.cards import card_str
from felt_engine.evaluator import describe
from felt_engine.hand import strength_of, table_antes
from felt_engine.operations import PRIVATE_KINDS, Operation
from felt_engine.pots import build_pots
from felt_engine.preactions import available_preactions
from felt_engine.state import HandState

__all__ = [
    "Sight",
    "SeatSight",
    "pots_view",
    "public_view",
    "seat_view",
    "seen_by",
    "sight",
    "visible_operations",
    "visible_cards",
]

C = TypeVar("C")  # a card as the caller holds it: an int (engine) or its text ("As")


class PotDict(TypedDict):
    amount: int
    eligible: list[int]


class SeatDict(TypedDict):
    seat: int
    stack: int
    bet: int
    committed: int
    folded: bool
    allIn: bool
    cardCount: int
    cards: list[str] | None
    shown: bool
    leaving: bool
    payout: int | None
    handName: str | None


class ViewDict(TypedDict):
    """A hand as one viewer sees it (the JSON shape of the agent API's `hand`)."""

    handId: str | None
    rulesVersion: str
    structure: str
    street: str
    phase: Phase
    button: int
    smallBlind: int | None
    bigBlind: int | None
    board: list[str]
    pot: int
    pots: list[PotDict]
    toMatch: int
    actorSeatId: int | None
    turnId: int
    seats: list[SeatDict]
    showdown: bool | None
    # a seated viewer's own part
    yourSeatId: NotRequired[int]
    holeCards: NotRequired[list[str]]
    preaction: NotRequired[str | None]
    preactionsAvailable: NotRequired[list[str]]
    legalActions: NotRequired[dict[str, Any] | None]


def seen_by(
    kind: str, cards: Sequence[C], discarded: Sequence[C], amount: int, own: bool
) -> tuple[Sequence[C], Sequence[C], int]:
    """An operation's cards, discards and amount as a viewer sees them (`own`: the viewer is
    the operation's seat). Another seat's hole cards show only how many were dealt, another
    seat's draw neither what it threw away nor what it took, and a burnt card nobody."""
    if own or kind not in PRIVATE_KINDS:
        return cards, discarded, amount
    return (), (), len(cards) if kind == "deal_hole" else amount


def _cards(cards: Iterable[int]) -> list[str]:
    return [card_str(c) for c in cards]


def visible_cards(st: HandState, i: int, viewer: int | None) -> tuple[int, ...] | None:
    """Player ``i``'s hole cards as ``viewer`` (a seat or None) may see them."""
    shown = st.shown[i]
    if shown is not None:
        return shown
    if viewer is not None and st.seats[i] == viewer:
        return st.holes[i]
    return None


class SeatSight(NamedTuple):
    """One seat of a hand as a viewer sees it (`cards`: None while hidden)."""

    seat: int
    stack: int
    bet: int
    committed: int
    folded: bool
    all_in: bool
    card_count: int
    cards: tuple[str, ...] | None
    shown: bool
    leaving: bool
    payout: int | None
    hand_name: str | None


class Sight(NamedTuple):
    """A hand as one viewer (a seat, or None: a spectator) sees it; the views and the table's
    `HandView` are built from it. The viewer's own part is None unless they are dealt in."""

    hand_id: str | None
    rules_version: str
    structure: str
    street: str
    phase: Phase
    button: int
    small_blind: int | None
    big_blind: int | None
    board: tuple[str, ...]
    pot: int
    pots: tuple[PotDict, ...]
    to_match: int
    actor_seat: int | None
    turn_id: int
    seats: tuple[SeatSight, ...]
    showdown: bool | None
    viewer: int | None
    hole_cards: tuple[str, ...] | None = None
    preaction: str | None = None
    preactions_available: tuple[str, ...] | None = None
    legal_actions: LegalActions | None = None  # the viewer's, on their turn


def sight(st: HandState, viewer: int | None) -> Sight:
    over = st.phase == "over"
    mine = st.index_of(viewer) if viewer is not None else None
    seats = []
    for i, s in enumerate(st.seats):
        cards = visible_cards(st, i, viewer)
        seats.append(
            SeatSight(
                seat=s,
                stack=st.stacks[i],
                bet=st.bets[i],
                committed=st.contrib[i],
                folded=st.folded[i],
                all_in=st.stacks[i] == 0 and not st.folded[i] and not over,
                card_count=len(st.holes[i]) if not st.folded[i] else 0,
                cards=tuple(_cards(cards)) if cards is not None else None,
                shown=st.shown[i] is not None,
                leaving=st.leaving[i],
                payout=st.payouts[i] if st.payouts is not None else None,
                hand_name=_hand_name(st, i) if st.shown[i] is not None else None,
            )
        )
    return Sight(
        hand_id=st.hand_id,
        rules_version=st.rules_version,
        structure=st.structure.value,
        street=st.street_name,
        phase=st.phase,
        button=st.button_seat,
        small_blind=st.seats[st.sb] if st.sb is not None else None,
        big_blind=st.seats[st.bb] if st.bb is not None else None,
        board=tuple(_cards(st.board)),
        pot=st.pot,
        pots=tuple(pots_view(st)),
        to_match=0 if over else betting.to_match(st),
        actor_seat=st.actor_seat,
        turn_id=st.turn_id,
        seats=tuple(seats),
        showdown=st.showdown if over else None,
        viewer=viewer,
        hole_cards=tuple(_cards(st.holes[mine])) if mine is not None else None,
        preaction=st.preactions[mine] if mine is not None else None,
        preactions_available=available_preactions(st, viewer) if mine is not None and viewer is not None else None,
        legal_actions=betting.legal_actions_at(st, mine) if mine is not None and st.actor == mine else None,
    )


def public_view(st: HandState) -> ViewDict:
    return _view(sight(st, None))


def seat_view(st: HandState, seat: int) -> ViewDict:
    """What ``seat`` may see: the public view plus their own cards, pre-action, the
    pre-actions they may set now and (on their turn) ``legalActions``."""
    return _view(sight(st, seat))


def _view(v: Sight) -> ViewDict:
    """`v` as JSON-ready data, in the agent API's names."""
    seats: list[SeatDict] = [
        {
            "seat": x.seat,
            "stack": x.stack,
            "bet": x.bet,
            "committed": x.committed,
            "folded": x.folded,
            "allIn": x.all_in,
            "cardCount": x.card_count,
            "cards": list(x.cards) if x.cards is not None else None,
            "shown": x.shown,
            "leaving": x.leaving,
            "payout": x.payout,
            "handName": x.hand_name,
        }
        for x in v.seats
    ]
    view: ViewDict = {
        "handId": v.hand_id,
        "rulesVersion": v.rules_version,
        "structure": v.structure,
        "street": v.street,
        "phase": v.phase,
        "button": v.button,
        "smallBlind": v.small_blind,
        "bigBlind": v.big_blind,
        "board": list(v.board),
        "pot": v.pot,
        "pots": list(v.pots),
        "toMatch": v.to_match,
        "actorSeatId": v.actor_seat,
        "turnId": v.turn_id,
        "seats": seats,
        "showdown": v.showdown,
    }
    if v.viewer is not None:
        view["yourSeatId"] = v.viewer
        if v.hole_cards is not None:
            view["holeCards"] = list(v.hole_cards)
            view["preaction"] = v.preaction
            view["preactionsAvailable"] = list(v.preactions_available or ())
            view["legalActions"] = v.legal_actions.to_dict() if v.legal_actions is not None else None
    return view


def _hand_name(st: HandState, i: int) -> str | None:
    """A revealed hand's showdown name ("Two Pair, Kings and Fives"), once it has five cards."""
    if len(st.holes[i]) + len(st.board) < 5:
        return None
    return describe(strength_of(st, i))


def pots_view(st: HandState) -> list[PotDict]:
    """The chips in the middle as pots, main pot first (the bets still in front of the players
    are not in them yet): the settlement's layers, with neighbouring layers that the same live
    hands can win merged into one pot, as a dealer would stack them."""
    if st.payouts is not None:
        return []
    live = [s for i, s in enumerate(st.seats) if not st.folded[i]]
    collected = {s: st.contrib[i] - st.bets[i] for i, s in enumerate(st.seats)}
    pots: list[tuple[int, tuple[int, ...]]] = []  # (amount, eligible seats)
    for layer in build_pots(collected, live, table_antes(st.operations)):
        if pots and pots[-1][1] == layer.eligible:
            pots[-1] = (pots[-1][0] + layer.amount, layer.eligible)
        else:
            pots.append((layer.amount, layer.eligible))
    return [{"amount": amount, "eligible": list(eligible)} for amount, eligible in pots]


def visible_operations(ops: Iterable[Operation], viewer: int | None = None) -> list[dict[str, Any]]:
    """The operation log as ``viewer`` (a seat or None) may see it: `Operation.to_dict` with
    cards as text and the private ones removed (`seen_by`)."""
    out = []
    for op in ops:
        cards, discarded, amount = seen_by(
            op.kind, op.cards, op.discarded, op.amount, viewer is not None and op.seat == viewer
        )
        out.append({**op.to_dict(), "cards": _cards(cards), "discarded": _cards(discarded), "amount": amount})
    return out
