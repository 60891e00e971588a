"""Pre-actions (the five-card draw rules' checkboxes) and queued leave behaviour.

A player may pick one pre-action before their turn; it stays set for the rest of the
hand (until changed or cleared) and is dropped when the player can no longer act
(folded or all-in) and at hand end (a new hand starts with none):

* ``check_fold`` - check when free, otherwise fold; it can be *set* only while
  nobody has bet or raised in the current betting round (the five-card draw rules: "доступен на
  каждом круге торговли пока кем-либо из игроков не была поднята ставка"); once set
  it stays and folds to a later bet;
* ``fold``       - fold;
* ``call_any``   - call whatever is bet (check when there is nothing to call);
* ``raise_any``  - raise whenever possible: the minimum bet/raise; if only an
  all-in raise is possible, all-in; if no raise is possible, call (or check).

The engine never applies a pre-action by itself inside :func:`apply` because a call
or raise commits chips, which the wallet must escrow first. The table asks
:func:`auto_action` after every step and, when it returns something, escrows
``chips_committed(preview(...))`` and applies it (:func:`step_auto` does the apply).
A player who left under ``queue_check_fold`` gets check/fold (stand pat in the draw)
on every turn, whatever pre-action was set. Pre-actions never act in the draw round.
"""

from __future__ import annotations

from typing import NamedTuple

from felt_engine import betting
from felt_engine.actions import PREACTIONS, Action
from felt_engine.errors import IllegalAction
from felt_engine.hand import Step, _player, _safe_action, apply
from felt_engine.state import HandState, Work

__all__ = [
    "AutoAction",
    "set_preaction",
    "available_preactions",
    "auto_action",
    "step_auto",
    "resolve_preaction",
]


class AutoAction(NamedTuple):
    seat: int
    action: Action
    reason: str  # "preaction" | "leave"


def _bet_this_round(st: HandState) -> bool:
    """Has anyone bet or raised (voluntarily) since the current round began?"""
    for op in reversed(st.operations):
        if op.kind == "street":
            return False
        if op.kind in ("bet", "raise"):
            return True
    return False


def _refusal(st: HandState, i: int, preaction: object) -> IllegalAction | None:
    """Why player ``i`` may not set ``preaction`` now (None: they may)."""
    if preaction not in PREACTIONS or not st.profile.preactions:
        return IllegalAction("invalid_preaction", f"unknown pre-action {preaction!r}")
    if st.folded[i]:
        return IllegalAction("already_folded", "already out of this hand")
    if st.stacks[i] == 0:
        return IllegalAction("invalid_preaction", "all-in: nothing left to decide")
    if preaction == "check_fold" and _bet_this_round(st):
        return IllegalAction(
            "invalid_preaction", "check/fold is available only while nobody has bet or raised this round"
        )
    return None


def available_preactions(st: HandState, seat: int) -> tuple[str, ...]:
    """The pre-actions ``seat`` may set now (sorted; empty when none)."""
    i = st.index_of(seat)
    if i is None or st.phase == "over":
        return ()
    return tuple(sorted(p for p in PREACTIONS if _refusal(st, i, p) is None))


def set_preaction(st: HandState, seat: int, preaction: object) -> HandState:
    """Set (or clear with None) ``seat``'s pre-action. Returns the new state. (``object``:
    anything else is refused with ``invalid_preaction``, compiled too, where a ``str``
    parameter would refuse it with a TypeError.)"""
    if st.phase == "over":
        raise IllegalAction("hand_over", "the hand is over")
    i = _player(st, seat)
    if preaction is not None:
        refusal = _refusal(st, i, preaction)
        if refusal is not None:
            raise refusal
    w = Work(st)
    w.preactions[i] = preaction if isinstance(preaction, str) else None  # None or one of PREACTIONS here
    return w.freeze()


def resolve_preaction(st: HandState, seat: int, preaction: str) -> Action:
    """The concrete action ``preaction`` means for ``seat`` now (their turn)."""
    legal = betting.legal_actions_at(st, _player(st, seat))
    if preaction == "fold":
        return Action("fold")
    if preaction == "check_fold":
        return Action("check") if legal.check else Action("fold")
    if preaction == "raise_any":
        if legal.bet is not None:
            return Action("bet", legal.bet.min)
        if legal.raise_to is not None:
            return Action("raiseTo", legal.raise_to.min)
        if legal.all_in is not None and legal.all_in > legal.to_call:
            return Action("allIn")
    # call_any, or raise_any when no raise is possible
    return Action("call") if legal.call is not None else Action("check")


def auto_action(st: HandState) -> AutoAction | None:
    """The action the current actor's pre-action / queued leave resolves to, if any."""
    if st.phase == "over" or st.actor is None:
        return None
    i = st.actor
    seat = st.seats[i]
    if st.leaving[i]:
        return AutoAction(seat, _safe_action(st, i), "leave")
    pre = st.preactions[i]
    if pre is None or st.phase != "betting":
        return None
    return AutoAction(seat, resolve_preaction(st, seat, pre), "preaction")


def step_auto(st: HandState) -> Step | None:
    """Apply :func:`auto_action` if there is one (escrow its chips first!)."""
    auto = auto_action(st)
    if auto is None:
        return None
    return apply(st, auto.seat, auto.action, reason=auto.reason)
