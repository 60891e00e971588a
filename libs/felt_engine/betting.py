"""Betting rules as pure functions of a state (``HandState`` or its working copy).

Rules implemented here (each has a named test in ``tests/engine/test_betting.py``):

* The amount to match (:func:`to_match`) is the highest street commitment, except
  preflop: a short (all-in) big blind does not reduce the nominal call (the BB) while
  two funded (non-folded, chips behind) players can still bet.
* A full bet/raise increases the amount to match by at least the last full increment
  (first increment on a street = the bet unit: BB, or the ante in ante-only games;
  so the minimum bet is the unit and the minimum raise-to preflop is 2xBB). A smaller
  increase is only possible as an all-in and does not change the increment.
* Raise rights are tracked per player (:func:`can_raise`): a player who has not acted
  on this street may raise; one who has may raise again only if the amount to match
  has grown by at least a full increment since their last action (so a short all-in
  does not reopen, cumulative short all-ins do, and a checker facing only an
  incomplete opening all-in cannot raise).
* A player whose opponents are all all-in (or folded) may call but not raise.
* No-limit: raise up to the stack. Pot-limit: the maximum raise-to is the pot after
  the call: ``to_match + pot (all chips committed, current bets included) + to_call``.
  Fixed-limit: bets/raises are one unit x the street's ``limit_units`` (in draw's
  second round 1 or 2 units: ``StreetSpec.limit_range``); at most ``raise_cap`` full
  bets+raises per round (the BB counts as the bet).
* Nobody may commit more than their stack; chips are integers.
"""

from __future__ import annotations

from felt_engine.actions import Action, Bounds, LegalActions
from felt_engine.errors import IllegalAction
from felt_engine.profiles import Structure
from felt_engine.state import HandState, StateView

__all__ = [
    "to_match",
    "funded_count",
    "next_to_act",
    "can_raise",
    "raise_bounds",
    "legal_actions_at",
    "legal_for",
    "street_increment",
    "from_add_now",
]

_new = tuple.__new__  # named tuples built without their generated __new__ (hot path)


def funded_count(st: StateView) -> int:
    """Live players with chips behind (the ones who can still bet)."""
    count = 0
    for folded, stack in zip(st.folded, st.stacks):
        if stack and not folded:
            count += 1
    return count


def to_match(st: StateView, nfunded: int | None = None) -> int:
    """The street total to match (``nfunded``: :func:`funded_count`, if known)."""
    actual = max(st.bets)
    if st.nominal_bet > actual and (funded_count(st) if nfunded is None else nfunded) >= 2:
        return st.nominal_bet
    return actual


def next_to_act(st: StateView, start: int, tm: int, nfunded: int) -> int | None:
    """The first player clockwise from ``start`` who must act (None: the round is
    closed): live with chips behind, and short of ``tm`` or (while another funded
    player could answer a bet) not yet acted on this street."""
    folded, stacks, bets, acted = st.folded, st.stacks, st.bets, st.acted
    n = len(folded)
    for k in range(start, start + n):
        i = k % n
        if folded[i] or not stacks[i]:
            continue
        if bets[i] < tm or (nfunded > 1 and not acted[i]):
            return i
    return None


def street_increment(st: StateView) -> int:
    """The first full increment of a street: bet unit (x the smallest limit units in
    fixed limit)."""
    if st.info.structure is Structure.FIXED_LIMIT:
        return st.info.unit * st.info.profile.streets[st.street].limit_range[0]
    return st.info.unit


def can_raise(st: StateView, i: int, tm: int, nfunded: int | None = None) -> bool:
    """May player ``i`` put in more than a call (a bet, raise or raising all-in)?"""
    if st.stacks[i] <= tm - st.bets[i]:
        return False
    # i is live with chips behind (it covers more than the call): is anyone else?
    if (funded_count(st) if nfunded is None else nfunded) < 2 or st.folded[i]:
        return False
    if st.acted[i] and tm - st.acted_level[i] < st.last_full_raise:
        return False
    if (
        st.info.structure is Structure.FIXED_LIMIT
        and st.info.profile.raise_cap is not None
        and st.raise_count >= st.info.profile.raise_cap
    ):
        return False
    return True


def raise_bounds(st: StateView, i: int, tm: int) -> tuple[int, int]:
    """(min, max) street totals of a *full* bet/raise for ``i`` ignoring the stack
    (callers clamp to ``bets[i] + stacks[i]``)."""
    if st.info.structure is Structure.FIXED_LIMIT:
        lo, hi = st.info.profile.streets[st.street].limit_range
        return tm + st.info.unit * lo, tm + st.info.unit * hi
    lo = tm + st.last_full_raise
    if st.info.structure is Structure.POT_LIMIT:
        hi = tm + sum(st.contrib) + (tm - st.bets[i])
        return lo, max(lo, hi)
    return lo, st.bets[i] + st.stacks[i]


def legal_for(st: StateView, i: int, tm: int, nfunded: int, *, bounded: bool = True) -> LegalActions:
    """The legal actions of player ``i`` in a betting round (``tm``, ``nfunded``:
    :func:`to_match` and :func:`funded_count`). Computed once when a turn starts and
    carried in the state (``HandState.turn``). ``bounded``: within the player's allowance
    (``HandInfo.allowances``), if one is below their stack."""
    legal = _legal_for(st, i, tm, nfunded)
    allowances = st.info.allowances
    if bounded and allowances is not None:
        room = allowances[i] - st.contrib[i]
        if room < st.stacks[i]:
            return _within(legal, max(0, room), st.bets[i])
    return legal


def _within(legal: LegalActions, room: int, bet: int) -> LegalActions:
    """``legal`` for a player who may add at most ``room`` chips (less than their stack):
    no all-in, no call above it, bets and raises up to ``bet + room``."""
    call = legal.call if legal.call is not None and legal.call <= room else None
    bet_b, raise_b = (_capped(b, bet + room) for b in (legal.bet, legal.raise_to))
    full = bet_b or raise_b
    bet_add = Bounds(full.min - bet, full.max - bet) if legal.add_now and full else None
    return legal._replace(call=call, bet=bet_b, raise_to=raise_b, all_in=None, all_in_to=None, bet_add=bet_add)


def _capped(bounds: Bounds | None, hi: int) -> Bounds | None:
    if bounds is None or bounds.min > hi:
        return None
    return Bounds(bounds.min, min(bounds.max, hi))


def check_allowance(st: StateView, i: int, action: Action, tm: int, nfunded: int) -> None:
    """Raise ``over_allowance`` when ``action`` (refused against the bounded legal actions)
    would be legal but for player ``i``'s allowance; otherwise return (the caller's refusal stands)."""
    allowances = st.info.allowances
    if allowances is None or allowances[i] - st.contrib[i] >= st.stacks[i]:
        return
    try:
        resolve(st, i, action, legal_for(st, i, tm, nfunded, bounded=False), tm)
    except IllegalAction:
        return
    room = max(0, allowances[i] - st.contrib[i])
    raise IllegalAction("over_allowance", f"{room} more chips allowed in this hand (wager limits)")


def _legal_for(st: StateView, i: int, tm: int, nfunded: int) -> LegalActions:
    stack, bet = st.stacks[i], st.bets[i]
    to_call = tm - bet if tm > bet else 0
    all_in_to = bet + stack
    bet_b = raise_b = None
    if can_raise(st, i, tm, nfunded):
        info = st.info
        if info.structure is Structure.NO_LIMIT:  # raise_bounds, inlined for the common case
            lo, hi = tm + st.last_full_raise, all_in_to
        else:
            lo, hi = raise_bounds(st, i, tm)
        all_in_ok = all_in_to <= hi
        hi = min(hi, all_in_to)
        if lo <= hi:
            if tm == 0:
                bet_b = _new(Bounds, (lo, hi))
            else:
                raise_b = _new(Bounds, (lo, hi))
    else:
        all_in_ok = all_in_to <= tm
    all_in = stack if stack > 0 and all_in_ok else None
    add_now = st.info.profile.amount_convention == "add_now"
    full = bet_b or raise_b
    return _new(
        LegalActions,
        (
            st.info.seats[i],
            True,
            to_call == 0,
            (to_call if to_call < stack else stack) if to_call else None,
            bet_b,
            raise_b,
            all_in,
            all_in_to if all_in is not None else None,
            None,
            to_call if to_call < stack else stack,
            Bounds(full.min - bet, full.max - bet) if add_now and full else None,
            add_now,
        ),
    )


def legal_actions_at(st: HandState, i: int) -> LegalActions:
    """What player ``i`` of state ``st`` may do now (all false/None unless it is their turn)."""
    turn = st.turn  # None outside a betting turn: in the draw and once the hand is over
    if turn is not None and st.actor == i:
        return turn.legal
    if st.actor == i and st.phase == "draw":
        return LegalActions(st.info.seats[i], draw=len(st.holes[i]))
    return LegalActions(st.info.seats[i])


def resolve(st: StateView, i: int, action: Action, legal: LegalActions, tm: int) -> tuple[str, int]:
    """Validate a betting action for player ``i`` (the actor, whose legal actions are
    ``legal``; ``tm``: :func:`to_match`) and return ``(kind, street_total)`` with kind
    in fold/check/commit. Raises IllegalAction."""
    kind = action.kind
    bet = st.bets[i]
    if kind in ("fold", "check", "call", "allIn") and action.amount is not None:
        raise IllegalAction("amount_not_allowed", f"{kind} takes no amount")
    if kind == "fold":
        return "fold", bet
    if kind == "check":
        if not legal.check:
            raise IllegalAction("cannot_check", f"{tm - bet} to call")
        return "check", bet
    if kind == "call":
        if legal.call is None:
            raise IllegalAction("cannot_call", "nothing to call")
        return "commit", bet + legal.call
    if kind == "allIn":
        if legal.all_in is None:
            raise IllegalAction("cannot_all_in", "an all-in is not allowed here")
        return "commit", bet + legal.all_in  # all_in: the whole stack
    if kind in ("bet", "raiseTo"):
        amount = action.amount
        if amount is None:
            raise IllegalAction("amount_required", f"{kind} needs an amount (street total)")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalAction("invalid_amount", "amounts are integer chips")
        if kind == "bet" and tm > 0:
            raise IllegalAction("cannot_bet", f"there is a bet of {tm}: use raiseTo")
        if kind == "raiseTo" and tm == 0:
            raise IllegalAction("cannot_raise", "nothing to raise: use bet")
        all_in_to = bet + st.stacks[i]
        if amount > all_in_to:
            raise IllegalAction("amount_out_of_bounds", f"{amount} exceeds the stack ({all_in_to})")
        full = legal.bet or legal.raise_to
        # may raise: a full bet/raise is open, or only a raising (short) all-in
        if full is None and (legal.all_in is None or all_in_to <= tm):
            if amount == all_in_to and all_in_to <= tm:
                return "commit", all_in_to  # an all-in "raise" that is only a call
            raise IllegalAction("cannot_raise", "raising is not open to this player")
        if amount == all_in_to and legal.all_in is not None:
            return "commit", amount  # all-in (possibly short)
        # no full bound: the stack is short of a full raise, and only the all-in is left
        lo, hi = full if full is not None else (raise_bounds(st, i, tm)[0], all_in_to)
        if not lo <= amount <= hi:
            raise IllegalAction("amount_out_of_bounds", f"{kind} must be within {lo}..{hi}")
        if st.info.structure is Structure.FIXED_LIMIT and (amount - tm) % st.info.unit:
            raise IllegalAction("amount_out_of_bounds", f"a fixed-limit {kind} is whole bet units ({st.info.unit})")
        return "commit", amount
    raise IllegalAction("unknown_action", f"unknown action {kind!r}")


def from_add_now(st: HandState, seat: int, kind: str, add: object = None) -> Action:
    """Translate the ante-nl-1 protocol into an :class:`Action`.

    ``hit`` = check if free, else call (capped by the stack); ``bet N`` = add N chips
    now (N equal to the call is a call; N equal to the stack is an all-in; else a
    bet/raise to ``current street commitment + N``); ``fold`` = fold.
    """
    i = st.index_of(seat)
    if i is None:
        raise IllegalAction("not_in_hand", f"seat {seat} is not in this hand")
    if kind == "fold":
        return Action("fold")
    tm = to_match(st)
    to_call = max(0, tm - st.bets[i])
    if kind == "hit":
        return Action("call") if to_call else Action("check")
    if kind == "bet":
        if add is None:
            raise IllegalAction("amount_required", "bet needs the chips to add")
        if not isinstance(add, int) or isinstance(add, bool) or add <= 0:
            raise IllegalAction("invalid_amount", "bet adds a positive integer of chips")
        if add > st.stacks[i]:
            raise IllegalAction("amount_out_of_bounds", f"{add} exceeds the stack ({st.stacks[i]})")
        if add == st.stacks[i]:
            return Action("allIn")
        if add == to_call:
            return Action("call")
        if add < to_call:
            raise IllegalAction("amount_out_of_bounds", f"{to_call} to call")
        total = st.bets[i] + add
        return Action("bet", total) if tm == 0 else Action("raiseTo", total)
    if kind in ("check", "call", "allIn"):
        return Action(kind)
    raise IllegalAction("unknown_action", f"unknown action {kind!r}")
