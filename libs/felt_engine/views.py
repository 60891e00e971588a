"""Views derived from a hand state: plain dicts ready for JSON.

Privacy rules (tested in ``tests/engine/test_views.py``):

* A viewer sees their own hole cards; another player's cards only once revealed
  (``state.shown``: every live hand at showdown, or a voluntary ``show`` after the
  hand). Folded hands are never revealed by the engine.
* Deck order, the stub, burn cards and draw discards are never in any view.
* A hand won without showdown reveals no cards, and the unused board is never
  dealt so it cannot leak.

Cards are strings (``"As"``). ``viewer=None`` is the public (spectator) view.
"""

from __future__ import annotations

from felt_engine import betting
from felt_engine.cards import card_str
from felt_engine.evaluator import describe
from felt_engine.hand import strength_of, table_antes
from felt_engine.operations import Operation
from felt_engine.pots import build_pots
from felt_engine.preactions import available_preactions
from felt_engine.state import HandState

__all__ = ["pots_view", "public_view", "seat_view", "visible_operations", "visible_cards"]


def _cards(cards) -> list[str]:
    return [card_str(c) for c in cards]


def visible_cards(st: HandState, i: int, viewer: int | None) -> tuple[int, ...] | None:
    """Player ``i``'s hole cards as ``viewer`` (a seat or None) may see them."""
    if st.shown[i] is not None:
        return st.shown[i]
    if viewer is not None and st.seats[i] == viewer:
        return st.holes[i]
    return None


def public_view(st: HandState) -> dict:
    return _view(st, None)


def seat_view(st: HandState, seat: int) -> dict:
    """What ``seat`` may see: the public view plus their own cards, pre-action, the
    pre-actions they may set now and (on their turn) ``legalActions``."""
    return _view(st, seat)


def _view(st: HandState, viewer: int | None) -> dict:
    over = st.phase == "over"
    tm = 0 if over else betting.to_match(st)
    seats = []
    for i, s in enumerate(st.seats):
        cards = visible_cards(st, i, viewer)
        seats.append({
            "seat": s,
            "stack": st.stacks[i],
            "bet": st.bets[i],
            "committed": st.contrib[i],
            "folded": st.folded[i],
            "allIn": st.stacks[i] == 0 and not st.folded[i] and not over,
            "cardCount": len(st.holes[i]) if not st.folded[i] else 0,
            "cards": _cards(cards) if cards is not None else None,
            "shown": st.shown[i] is not None,
            "leaving": st.leaving[i],
            "payout": st.payouts[i] if st.payouts is not None else None,
            "handName": _hand_name(st, i) if st.shown[i] is not None else None,
        })
    view = {
        "handId": st.hand_id,
        "rulesVersion": st.rules_version,
        "structure": st.structure.value,
        "street": st.street_name,
        "phase": st.phase,
        "button": st.button_seat,
        "smallBlind": st.seats[st.sb] if st.sb is not None else None,
        "bigBlind": st.seats[st.bb] if st.bb is not None else None,
        "board": _cards(st.board),
        "pot": st.pot,
        "pots": pots_view(st),
        "toMatch": tm,
        "actorSeatId": st.actor_seat,
        "turnId": st.turn_id,
        "seats": seats,
        "showdown": st.showdown if over else None,
    }
    if viewer is not None:
        i = st.index_of(viewer)
        view["yourSeatId"] = viewer
        if i is not None:
            view["holeCards"] = _cards(st.holes[i])
            view["preaction"] = st.preactions[i]
            view["preactionsAvailable"] = list(available_preactions(st, viewer))
            view["legalActions"] = (
                betting.legal_actions_at(st, i).to_dict() if st.actor == i else None
            )
    return view


def _hand_name(st: HandState, i: int) -> str | None:
    """A revealed hand's showdown name ("Two Pair, Kings and Fives"), once it has five cards."""
    if len(st.holes[i]) + len(st.board) < 5:
        return None
    return describe(strength_of(st, i))


def pots_view(st: HandState) -> list[dict]:
    """The chips in the middle as pots, main pot first (the bets still in front of the players
    are not in them yet): the settlement's layers, with neighbouring layers that the same live
    hands can win merged into one pot, as a dealer would stack them."""
    if st.payouts is not None:
        return []
    live = [s for i, s in enumerate(st.seats) if not st.folded[i]]
    collected = {s: st.contrib[i] - st.bets[i] for i, s in enumerate(st.seats)}
    pots: list[dict] = []
    for layer in build_pots(collected, live, table_antes(st.operations)):
        eligible = list(layer.eligible)
        if pots and pots[-1]["eligible"] == eligible:
            pots[-1]["amount"] += layer.amount
        else:
            pots.append({"amount": layer.amount, "eligible": eligible})
    return pots


def visible_operations(ops, viewer: int | None = None) -> list[dict]:
    """The operation log as ``viewer`` may see it (private cards removed)."""
    out = []
    for op in ops:
        d = _visible_op(op, viewer)
        if d is not None:
            out.append(d)
    return out


def _visible_op(op: Operation, viewer: int | None) -> dict | None:
    d = op.to_dict()
    d["cards"] = _cards(op.cards)
    d["discarded"] = _cards(op.discarded)
    own = viewer is not None and op.seat == viewer
    if op.kind == "burn":
        d["cards"] = []
    elif op.kind == "deal_hole" and not own:
        d["cards"] = []
        d["amount"] = len(op.cards)
    elif op.kind == "draw" and not own:
        d["cards"] = []
        d["discarded"] = []
    return d
