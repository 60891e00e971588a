"""The hand state machine: one pure engine for every profile.

Usage (the table actor)::

    state, ops = start_hand(profile, stakes, {1: 500, 4: 500, 7: 500}, button=1, deck=deck)
    # escrow chips_committed(ops) in the wallet, then keep `state`
    legal = legal_actions(state, state.actor_seat)
    new_state, ops = apply(state, seat, Action.raise_to(60))   # raises IllegalAction
    # escrow chips_committed(ops); if the wallet refuses, keep the old `state`

Every function here is pure: no I/O, clocks or randomness beyond what it receives
(the deck; for five-card draw an optional ``reshuffle_seed``). States are immutable.

Turn order: preflop with blinds, action starts left of the big blind (heads-up the
button posts the small blind, so it acts first preflop and last afterwards); every
other betting round starts left of the button among players who can act. Ante-only
profiles (``first_to_act="left_of_dealer"``) start left of the dealer on every street.

Ending: when all but one player have folded the hand ends at once (nothing revealed,
no further board dealt). When at most one player can still bet and all bets are
matched, the remaining streets are dealt with no betting. At showdown every live hand
is revealed and each pot goes to the best five-card hand (best five of seven in
hold'em, the five held in draw) via :func:`felt_engine.pots.settle`.

Five-card draw: after the first betting round every live hand (all-in ones too) draws
once, in seat order from the left of the dealer: discard 0-5, replaced from the stub.
If the stub runs short, the player takes what is left of the stub and the rest comes
from the earlier players' discards (never their own), reshuffled. The reshuffle order
is a pure function of ``reshuffle_seed`` (pass ``secrets.randbits(64)``); when omitted
it is derived from the secret deck order, so it is exactly as unpredictable as the
shuffle itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from felt_engine import betting, forced
from felt_engine.actions import Action, LegalActions
from felt_engine.cards import Deck
from felt_engine.errors import ConfigError, IllegalAction
from felt_engine.evaluator import rank_hand
from felt_engine.operations import Operation, op
from felt_engine.pots import settle_trusted
from felt_engine.profiles import RulesProfile, Structure, TableStakes, bet_unit, resolve_structure, validate_stakes
from felt_engine.state import HandInfo, HandState, Turn, Work, with_item

_new = tuple.__new__  # named tuples built without their generated __new__ (hot path)

__all__ = [
    "Step",
    "start_hand",
    "apply",
    "preview",
    "legal_actions",
    "timeout",
    "leave",
    "show",
    "strength_of",
    "next_button",
]


class Step(NamedTuple):
    """``state, ops = step``: the new state and the operations this step performed."""

    state: HandState
    ops: tuple[Operation, ...]


def _finish(w: Work) -> Step:
    ops = tuple(w.ops)
    return _new(Step, (w.freeze(ops), ops))


# ---------------------------------------------------------------------------------
# starting a hand
# ---------------------------------------------------------------------------------


def next_button(previous: int | None, seats: Sequence[int]) -> int:
    """The next occupied seat clockwise after ``previous`` (the first seat if None)."""
    ordered = sorted(seats)
    if not ordered:
        raise ConfigError("bad_seats", "no seats")
    if previous is None:
        return ordered[0]
    for s in ordered:
        if s > previous:
            return s
    return ordered[0]


def start_hand(
    profile: RulesProfile,
    stakes: TableStakes,
    stacks: Mapping[int, int],
    button: int,
    deck: Deck | str | Iterable[object],
    *,
    hand_id: str | None = None,
    reshuffle_seed: int | None = None,
    allowances: Mapping[int, int] | None = None,
) -> Step:
    """Post forced bets and deal. ``stacks``: table seat -> chips, only the players the
    caller deals in (seat numbers ascending = clockwise). ``button`` must be one of
    them. A player who cannot cover a forced bet posts what they have (all-in) under
    ``short_forced_bet="all_in"``; under ``"exclude"`` such a player must not be dealt
    in (``ConfigError("short_stack")``).

    ``allowances`` (table seat -> chips, optional per seat): the most a player may commit
    over the whole hand, forced bets included, when that is less than the stack (a wager
    cap the caller looked up). It bounds the legal actions as a stack would, except that a
    player held below their stack is never all-in: a call, bet or raise past it is refused
    with ``IllegalAction("over_allowance")``. The forced bets are posted whatever it says
    (the caller deals in only seats whose allowance covers them)."""
    structure, unit, street_names = _checked_structure(profile, stakes)
    seats = tuple(sorted(stacks))
    n = len(seats)
    if not profile.min_seats <= n <= profile.max_seats:
        raise ConfigError(
            "bad_seats", f"{profile.rules_version} deals {profile.min_seats}-{profile.max_seats} players, not {n}"
        )
    floor = stakes.ante + (stakes.big_blind if profile.blinds else 0) if profile.short_forced_bet == "exclude" else 1
    given: Mapping[int, object] = stacks  # compiled, reading them as `int` would refuse a float with a TypeError
    for s in seats:
        v = given[s]
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ConfigError("bad_seats", f"seat {s} has no chips ({v!r})")
        if v < floor:
            raise ConfigError("short_stack", f"seat {s} cannot cover the forced bets")
    stack_t = tuple(stacks[s] for s in seats)
    allow_t = _allowances(seats, stack_t, allowances)
    if button not in stacks:
        raise ConfigError("bad_button", f"button seat {button} is not dealt in")
    if not isinstance(deck, Deck):
        deck = Deck.from_order(deck)
    b = seats.index(button)
    sb, bb, straddler = forced.positions(profile, stakes, n, b)
    zeros, nones, no = (0,) * n, (None,) * n, (False,) * n
    info = _new(
        HandInfo,
        (
            profile,
            stakes,
            structure,
            hand_id,
            seats,
            n,
            b,
            sb,
            bb,
            stack_t,
            reshuffle_seed if reshuffle_seed is not None else bytes(deck.order) + b"/reshuffle",
            unit,
            street_names,
            allow_t,
        ),
    )
    st = _new(
        HandState,
        (  # positionally, in HandState's field order
            info,
            stack_t,
            zeros,
            zeros,
            no,
            no,
            zeros,
            ((),) * n,
            (),
            (),
            (),
            deck,  # stacks .. deck
            0,
            "betting",
            None,
            0,
            0,
            0,
            0,
            no,
            nones,
            no,
            nones,
            False,
            None,
            (),
            None,  # street .. turn
        ),
    )
    w = Work(st)
    w.ops.append(op("hand_start", seat=button, detail=profile.rules_version))
    order = [(b + 1 + k) % n for k in range(n)]  # left of the button first
    for p in forced.posts(profile, stakes, n, b):
        _post(w, p.i, p.amount, p.kind, to_bets=p.to_bets, detail=p.detail)
    w.last_full_raise = betting.street_increment(w)
    if profile.blinds:
        w.nominal_bet = stakes.straddle or stakes.big_blind
        w.raise_count = 1  # the big blind is the bet (fixed-limit cap)
        w.last_full_raise = max(w.last_full_raise, stakes.straddle)  # min raise-to 2x straddle
    spec = profile.streets[0]
    # one card at a time, left of the button first (felt_engine.dealing builds decks for it)
    cards, w.deck = w.deck.deal(spec.hole_cards * n)
    holes = list(w.holes)
    for k, i in enumerate(order):
        holes[i] = cards[k::n]
    w.holes = tuple(holes)
    for i in order:
        w.ops.append(op("deal_hole", seat=seats[i], cards=w.holes[i]))
    w.ops.append(op("street", street=spec.name))
    if profile.first_to_act == "blinds" and bb is not None:
        first = ((straddler if straddler is not None else bb) + 1) % n  # left of the last blind
    else:
        first = (b + 1) % n
    _advance(w, first)
    return _finish(w)


def _allowances(
    seats: tuple[int, ...], stacks: tuple[int, ...], given: Mapping[int, int] | None
) -> tuple[int, ...] | None:
    """Per player, the chips they may commit in the hand (None when no allowance is below its stack)."""
    if not given:
        return None
    raw: Mapping[int, object] = given  # compiled, reading them as `int` would refuse a float with a TypeError
    out = []
    for s, stack in zip(seats, stacks):
        v = raw.get(s, stack)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ConfigError("bad_allowance", f"seat {s} has an allowance of {v!r}")
        out.append(min(v, stack))
    return tuple(out) if out != list(stacks) else None


_Checked = tuple[Structure, int, tuple[str, ...]]
_CHECKED: dict[tuple[int, int], tuple[RulesProfile, TableStakes, _Checked]] = {}


def _checked_structure(profile: RulesProfile, stakes: TableStakes) -> _Checked:
    """:func:`validate_stakes`, then (structure, bet unit, street names), remembered per
    (profile, stakes) object: a table deals every hand with the same two immutable values."""
    hit = _CHECKED.get((id(profile), id(stakes)))
    if hit is not None and hit[0] is profile and hit[1] is stakes:
        return hit[2]
    validate_stakes(profile, stakes)
    checked = (resolve_structure(profile, stakes), bet_unit(profile, stakes), tuple(s.name for s in profile.streets))
    if len(_CHECKED) >= 1024:
        _CHECKED.clear()
    _CHECKED[(id(profile), id(stakes))] = (profile, stakes, checked)
    return checked


def _post(w: Work, i: int, amount: int, kind: str, *, to_bets: bool = True, detail: str = "") -> None:
    paid = min(amount, w.stacks[i])
    if paid == 0:
        return  # already all-in from an earlier forced bet
    w.stacks[i] -= paid
    w.contrib[i] += paid
    if to_bets:
        w.bets[i] += paid
    w.ops.append(
        op(
            kind,
            seat=w.info.seats[i],
            amount=paid,
            to=w.bets[i] if to_bets else None,
            all_in=w.stacks[i] == 0,
            detail=detail,
        )
    )


# ---------------------------------------------------------------------------------
# flow: next actor, streets, showdown
# ---------------------------------------------------------------------------------


def _advance(w: Work, start: int, keep_turn: bool = False, nfunded: int | None = None) -> None:
    """Find the next player to act scanning clockwise from ``start``; otherwise close
    the round and move on (deal next street / draw / showdown) until someone must act
    or the hand is over. ``keep_turn``: the current actor keeps the same turn id if
    they are still the one to act (used after an out-of-turn fold). ``nfunded``:
    :func:`~felt_engine.betting.funded_count` of ``w`` when the caller knows it (dealing
    and drawing never change it)."""
    previous = w.actor
    nf = betting.funded_count(w) if nfunded is None else nfunded
    while True:
        if w.phase == "over":
            return
        if w.folded.count(False) == 1:
            _award(w, showdown=False)
            return
        if w.phase == "draw":
            for k in range(w.n):
                i = (start + k) % w.n
                if not w.folded[i] and not w.drawn[i]:
                    _set_actor(w, i, previous, keep_turn)
                    w.turn = None
                    return
            # the draw round is over: betting on this street (if anyone can bet)
            w.phase = "betting"
            w.ops.append(op("street", street=w.info.street_names[w.street]))
            start = (w.info.button + 1) % w.n
            continue
        tm = betting.to_match(w, nf)
        j = betting.next_to_act(w, start, tm, nf)
        if j is not None:
            _set_actor(w, j, previous, keep_turn)
            w.turn = _new(Turn, (betting.legal_for(w, j, tm, nf), tm, nf))
            return
        # betting round closed
        if w.street + 1 >= len(w.info.profile.streets):
            _award(w, showdown=True)
            return
        _next_street(w)
        start = (w.info.button + 1) % w.n


def _set_actor(w: Work, i: int, previous: int | None, keep_turn: bool) -> None:
    w.actor = i
    if not (keep_turn and previous == i):
        w.turn_id += 1


def _next_street(w: Work) -> None:
    w.street += 1
    spec = w.info.profile.streets[w.street]
    n = w.n
    w.bets = [0] * n
    w.acted = [False] * n
    w.acted_level = [0] * n
    w.nominal_bet = 0
    w.raise_count = 0
    w.last_full_raise = betting.street_increment(w)
    w.actor = None
    burn = 1 if spec.burn else 0
    if burn or spec.board_cards:
        cards, w.deck = w.deck.deal(burn + spec.board_cards)  # the burn, then the board
        if burn:
            w.burns = w.burns + cards[:1]
            w.ops.append(op("burn", cards=cards[:1], street=spec.name))
        if spec.board_cards:
            w.board = w.board + cards[burn:]
            w.ops.append(op("deal_board", cards=cards[burn:], street=spec.name))
    if spec.draw:
        w.phase = "draw"
        w.drawn = (False,) * n
        w.ops.append(op("street", street="draw"))
    else:
        w.ops.append(op("street", street=spec.name))


def strength_of(st: HandState, i: int) -> int:
    """Showdown strength of player ``i`` (higher wins): best five of hole+board."""
    return rank_hand(st.holes[i] + st.board)


def table_antes(operations: Iterable[Operation]) -> dict[int, int]:
    """Seat -> its big-blind or button ante posted (main-pot money, see felt_engine.forced)."""
    dead: dict[int, int] = {}
    for o in operations:
        if o.kind == "street":  # forced bets are all posted before the first street starts
            break
        if o.kind == "post_ante" and o.detail and o.seat is not None:
            dead[o.seat] = dead.get(o.seat, 0) + o.amount
    return dead


def _award(w: Work, showdown: bool) -> None:
    n, seats, folded = w.n, w.info.seats, w.folded
    order = [seats[(w.info.button + 1 + k) % n] for k in range(n)]  # clockwise from left of the button
    live = [s for s, f in zip(seats, folded) if not f]
    strength = None
    if showdown and len(live) > 1:
        strength = {}
        shown = list(w.shown)
        for k in range(n):
            i = (w.info.button + 1 + k) % n
            if not folded[i]:
                shown[i] = hole = w.holes[i]
                w.ops.append(op("show", seat=seats[i], cards=hole, detail="showdown"))
                strength[seats[i]] = rank_hand(hole + w.board)
        w.shown = tuple(shown)
    else:
        showdown = False
    result = settle_trusted(dict(zip(seats, w.contrib)), live, strength, order, table_antes(w.operations or w.ops))
    for a in result.awards:
        w.ops.append(op("award", seat=a.seat, amount=a.amount, pot=a.pot_index, detail=a.reason))
    payouts = [result.payouts.get(s, 0) for s in w.info.seats]
    for i in range(w.n):
        w.stacks[i] += payouts[i]
    w.payouts = tuple(payouts)
    w.showdown = showdown
    w.phase = "over"
    w.actor = None
    w.turn = None
    w.turn_id += 1
    w.preactions = [None] * w.n
    w.ops.append(op("hand_end", detail="showdown" if showdown else "uncontested"))


# ---------------------------------------------------------------------------------
# actions
# ---------------------------------------------------------------------------------


def _player(st: HandState, seat: int) -> int:
    i = st.index_of(seat)
    if i is None:
        raise IllegalAction("not_in_hand", f"seat {seat} is not in this hand")
    return i


def legal_actions(st: HandState, seat: int) -> LegalActions:
    """What ``seat`` may do now (all false/None unless it is their turn)."""
    return betting.legal_actions_at(st, _player(st, seat))


def apply(st: HandState, seat: int, action: Action, *, reason: str = "") -> Step:
    """Apply ``action`` by ``seat`` on their turn. Raises :class:`IllegalAction` (and
    changes nothing) if it is not legal. ``reason`` tags the operations
    (``timeout``, ``leave``, ``preaction``)."""
    i = st.actor
    if i is None or st.info.seats[i] != seat:  # not this seat's turn: say why
        if st.phase == "over":
            raise IllegalAction("hand_over", "the hand is over")
        _player(st, seat)
        raise IllegalAction("not_your_turn", f"it is seat {st.actor_seat}'s turn")
    if not isinstance(action, Action):
        raise IllegalAction("unknown_action", f"not an Action: {action!r}")
    if st.phase == "draw":
        if action.kind != "draw":
            raise IllegalAction("not_betting_phase", "this is the draw: use draw(cards)")
        return _draw(st, i, action, reason)
    if action.kind == "draw":
        raise IllegalAction("not_draw_phase", "draw only in the draw round")
    turn = st.turn
    assert turn is not None  # a betting turn always carries it
    legal, tm, nf = turn
    try:
        kind, total = betting.resolve(st, i, action, legal, tm)
    except IllegalAction:
        betting.check_allowance(st, i, action, tm, nf)  # refused only by the allowance: say so
        raise
    w = Work(st)
    if kind == "fold":
        w.folded[i] = True
        w.preactions[i] = None
        w.ops.append(op("fold", seat=seat, street=st.info.street_names[st.street], detail=reason))
    elif kind == "check":
        w.acted[i] = True
        w.acted_level[i] = tm
        w.ops.append(op("check", seat=seat, street=st.info.street_names[st.street], detail=reason))
    else:
        _commit(w, i, total, tm, reason)
    # a fold, or an all-in, takes the actor out of the funded players
    _advance(w, (i + 1) % w.n, nfunded=nf - 1 if w.folded[i] or not w.stacks[i] else nf)
    return _finish(w)


def _commit(w: Work, i: int, total: int, tm: int, reason: str) -> None:
    """Player ``i`` brings their street total to ``total`` (``tm``: the amount to match before)."""
    add = total - w.bets[i]
    assert 0 < add <= w.stacks[i], (add, w.stacks[i])
    if total > tm:
        kind = "bet" if tm == 0 else "raise"
        increment = total - tm
        if increment >= w.last_full_raise:
            w.last_full_raise = increment if w.info.structure is not Structure.FIXED_LIMIT else w.last_full_raise
            w.raise_count += 1
    else:
        kind = "call"
    w.stacks[i] -= add
    w.bets[i] = total
    w.contrib[i] += add
    w.acted[i] = True
    w.acted_level[i] = max(total, tm)
    if w.stacks[i] == 0:
        w.preactions[i] = None
    w.ops.append(
        op(
            kind,
            seat=w.info.seats[i],
            amount=add,
            to=total,
            street=w.info.street_names[w.street],
            all_in=w.stacks[i] == 0,
            detail=reason,
        )
    )


def preview(st: HandState, seat: int, action: Action) -> tuple[Operation, ...]:
    """The operations ``apply`` would perform, without keeping the new state."""
    return apply(st, seat, action).ops


# ---------------------------------------------------------------------------------
# draw
# ---------------------------------------------------------------------------------


def _draw(st: HandState, i: int, action: Action, reason: str) -> Step:
    hand = st.holes[i]
    discard = tuple(action.cards)
    given: tuple[object, ...] = discard  # as sent: compiled, an `int` read would refuse a str with a TypeError
    if action.amount is not None:
        raise IllegalAction("amount_not_allowed", "draw takes cards, not an amount")
    if len(set(given)) != len(given) or any(c not in hand for c in given):
        raise IllegalAction("invalid_discard", "discard distinct cards from your own hand")
    w = Work(st)
    need = len(discard)
    new: tuple[int, ...] = ()
    if need:
        take = min(need, w.deck.remaining)
        new, w.deck = w.deck.deal(take)
        if take < need:  # stub short: recycle earlier discards (never this player's)
            pile = sorted(w.discards)
            if len(pile) < need - take:
                raise AssertionError("not enough cards to complete the draw")
            random.Random(repr((w.info.reshuffle_seed, w.turn_id))).shuffle(pile)
            w.discards = ()
            w.deck = Deck(tuple(pile))
            more, w.deck = w.deck.deal(need - take)
            new = new + more
        w.discards = w.discards + discard
    kept = tuple(c for c in hand if c not in discard)
    w.holes = with_item(w.holes, i, kept + new)
    w.drawn = with_item(w.drawn, i, True)
    w.ops.append(
        op("draw", seat=w.info.seats[i], cards=new, discarded=discard, amount=need, street="draw", detail=reason)
    )
    _advance(w, (i + 1) % w.n)
    return _finish(w)


# ---------------------------------------------------------------------------------
# timeouts, leaving, showing
# ---------------------------------------------------------------------------------


def _safe_action(st: HandState, i: int) -> Action:
    """Check when free, else fold; stand pat in the draw. Never commits chips."""
    if st.phase == "draw":
        return Action("draw")
    tm = betting.to_match(st)
    return Action("check") if st.bets[i] >= tm else Action("fold")


def timeout(st: HandState, seat: int, turn_id: int) -> Step:
    """The turn timer of ``turn_id`` fired for ``seat``: check if free, otherwise fold
    (stand pat in the draw). Never commits chips. A timer for a turn that is over
    raises ``IllegalAction("stale_turn")`` and can never act on a later turn."""
    if st.phase == "over":
        raise IllegalAction("hand_over", "the hand is over")
    i = _player(st, seat)
    if turn_id != st.turn_id or st.actor != i:
        raise IllegalAction("stale_turn", f"turn {turn_id} is over (now {st.turn_id})")
    return apply(st, seat, _safe_action(st, i), reason="timeout")


def leave(st: HandState, seat: int) -> Step:
    """``seat`` leaves during the hand. Profile ``leave_policy``:

    * ``fold_now`` (ante-nl-1): the hand is folded at once, even out of turn; the
      chips already committed stay in the pot. The current actor keeps their turn.
    * ``queue_check_fold`` (nlhe-1 and the rest): check/fold is queued for each of the
      player's turns (see :func:`felt_engine.preactions.auto_action`); applied now
      if it is their turn. An all-in player keeps their pot eligibility.
    """
    if st.phase == "over":
        raise IllegalAction("hand_over", "the hand is over")
    i = _player(st, seat)
    if st.folded[i]:
        raise IllegalAction("already_folded", "already out of this hand")
    if st.info.profile.leave_policy == "queue_check_fold":
        if st.actor == i:
            marked = Work(st)
            marked.leaving = with_item(marked.leaving, i, True)
            return apply(marked.freeze(), seat, _safe_action(st, i), reason="leave")
        w = Work(st)
        w.leaving = with_item(w.leaving, i, True)
        return _finish(w)
    if st.actor == i:
        return apply(st, seat, Action("fold"), reason="leave")
    assert st.actor is not None  # a hand that is not over always has someone to act
    w = Work(st)
    w.folded[i] = True
    w.leaving = with_item(w.leaving, i, True)
    w.preactions[i] = None
    w.ops.append(op("fold", seat=seat, street=st.street_name, detail="leave"))
    _advance(w, st.actor, keep_turn=True)
    return _finish(w)


def show(st: HandState, seat: int) -> Step:
    """After the hand, a player may show their cards voluntarily."""
    i = _player(st, seat)
    if st.phase != "over":
        raise IllegalAction("cannot_show", "cards can be shown once the hand is over")
    if st.shown[i] is not None:
        raise IllegalAction("cannot_show", "already shown")
    w = Work(st)
    hole = w.holes[i]
    w.shown = with_item(w.shown, i, hole)
    w.ops.append(op("show", seat=seat, cards=hole, detail="voluntary"))
    return _finish(w)
