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
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from felt_engine import betting, forced
from felt_engine.actions import Action, LegalActions
from felt_engine.cards import Deck
from felt_engine.errors import ConfigError, IllegalAction
from felt_engine.evaluator import rank_hand
from felt_engine.operations import Operation
from felt_engine.pots import settle
from felt_engine.profiles import RulesProfile, Structure, TableStakes, resolve_structure, validate_stakes
from felt_engine.state import HandState, Work, with_item

__all__ = [
    "Step", "start_hand", "apply", "preview", "legal_actions", "timeout", "leave",
    "show", "strength_of", "next_button",
]


class Step(NamedTuple):
    """``state, ops = step``: the new state and the operations this step performed."""

    state: HandState
    ops: tuple[Operation, ...]


def _finish(w: Work) -> Step:
    ops = tuple(w.ops)
    return Step(w.freeze(), ops)


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
    deck: Deck,
    *,
    hand_id: str | None = None,
    reshuffle_seed: int | None = None,
) -> Step:
    """Post forced bets and deal. ``stacks``: table seat -> chips, only the players the
    caller deals in (seat numbers ascending = clockwise). ``button`` must be one of
    them. A player who cannot cover a forced bet posts what they have (all-in) under
    ``short_forced_bet="all_in"``; under ``"exclude"`` such a player must not be dealt
    in (``ConfigError("short_stack")``)."""
    validate_stakes(profile, stakes)
    structure = resolve_structure(profile, stakes)
    seats = tuple(sorted(stacks))
    n = len(seats)
    if not profile.min_seats <= n <= profile.max_seats:
        raise ConfigError("bad_seats", f"{profile.rules_version} deals {profile.min_seats}-{profile.max_seats} players, not {n}")
    for s in seats:
        v = stacks[s]
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ConfigError("bad_seats", f"seat {s} has no chips ({v!r})")
        if profile.short_forced_bet == "exclude" and v < stakes.ante + (stakes.big_blind if profile.blinds else 0):
            raise ConfigError("short_stack", f"seat {s} cannot cover the forced bets")
    if button not in stacks:
        raise ConfigError("bad_button", f"button seat {button} is not dealt in")
    if not isinstance(deck, Deck):
        deck = Deck.from_order(deck)
    b = seats.index(button)
    sb, bb, straddler = forced.positions(profile, stakes, n, b)
    stack_t = tuple(stacks[s] for s in seats)
    st = HandState(
        profile=profile, stakes=stakes, structure=structure, hand_id=hand_id,
        seats=seats, button=b, sb=sb, bb=bb, starting_stacks=stack_t, stacks=stack_t,
        bets=(0,) * n, contrib=(0,) * n, folded=(False,) * n, acted=(False,) * n,
        acted_level=(0,) * n, holes=((),) * n, board=(), burns=(), discards=(), deck=deck,
        street=0, phase="betting", actor=None, turn_id=0, last_full_raise=0,
        raise_count=0, nominal_bet=0, drawn=(False,) * n, preactions=(None,) * n,
        leaving=(False,) * n, shown=(None,) * n, showdown=False, payouts=None,
        operations=(),
        reshuffle_seed=reshuffle_seed if reshuffle_seed is not None else bytes(deck.order) + b"/reshuffle",
    )
    w = Work(st)
    w.emit(Operation("hand_start", seat=button, detail=profile.rules_version))
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
        w.emit(Operation("deal_hole", seat=seats[i], cards=w.holes[i]))
    w.emit(Operation("street", street=spec.name))
    last_forced = straddler if straddler is not None else bb
    first = (last_forced + 1) % n if (profile.first_to_act == "blinds" and bb is not None) else (b + 1) % n
    _advance(w, first)
    return _finish(w)


def _post(w: Work, i: int, amount: int, kind: str, *, to_bets: bool = True, detail: str = "") -> None:
    paid = min(amount, w.stacks[i])
    if paid == 0:
        return  # already all-in from an earlier forced bet
    w.stacks[i] -= paid
    w.contrib[i] += paid
    if to_bets:
        w.bets[i] += paid
    w.emit(Operation(kind, seat=w.seats[i], amount=paid, to=w.bets[i] if to_bets else None,
                     all_in=w.stacks[i] == 0, detail=detail))


# ---------------------------------------------------------------------------------
# flow: next actor, streets, showdown
# ---------------------------------------------------------------------------------


def _advance(w: Work, start: int, keep_turn: bool = False) -> None:
    """Find the next player to act scanning clockwise from ``start``; otherwise close
    the round and move on (deal next street / draw / showdown) until someone must act
    or the hand is over. ``keep_turn``: the current actor keeps the same turn id if
    they are still the one to act (used after an out-of-turn fold)."""
    previous = w.actor
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
                    return
            # the draw round is over: betting on this street (if anyone can bet)
            w.phase = "betting"
            w.emit(Operation("street", street=w.profile.streets[w.street].name))
            start = (w.button + 1) % w.n
            continue
        nf = betting.funded_count(w)
        tm = betting.to_match(w, nf)
        n = w.n
        for k in range(n):
            i = (start + k) % n
            if betting.needs_to_act(w, i, tm, nf):
                _set_actor(w, i, previous, keep_turn)
                return
        # betting round closed
        if w.street + 1 >= len(w.profile.streets):
            _award(w, showdown=True)
            return
        _next_street(w)
        start = (w.button + 1) % w.n


def _set_actor(w: Work, i: int, previous: int | None, keep_turn: bool) -> None:
    w.actor = i
    if not (keep_turn and previous == i):
        w.turn_id += 1


def _next_street(w: Work) -> None:
    w.street += 1
    spec = w.profile.streets[w.street]
    n = w.n
    w.bets = [0] * n
    w.acted = [False] * n
    w.acted_level = [0] * n
    w.nominal_bet = 0
    w.raise_count = 0
    w.last_full_raise = betting.street_increment(w)
    w.actor = None
    if spec.burn:
        cards, w.deck = w.deck.deal(1)
        w.burns = w.burns + cards
        w.emit(Operation("burn", cards=cards, street=spec.name))
    if spec.board_cards:
        cards, w.deck = w.deck.deal(spec.board_cards)
        w.board = w.board + cards
        w.emit(Operation("deal_board", cards=cards, street=spec.name))
    if spec.draw:
        w.phase = "draw"
        w.drawn = (False,) * n
        w.emit(Operation("street", street="draw"))
    else:
        w.emit(Operation("street", street=spec.name))


def strength_of(st, i: int) -> int:
    """Showdown strength of player ``i`` (higher wins): best five of hole+board."""
    return rank_hand(st.holes[i] + st.board)


def table_antes(operations) -> dict[int, int]:
    """Seat -> its big-blind or button ante posted (main-pot money, see felt_engine.forced)."""
    dead: dict[int, int] = {}
    for op in operations:
        if op.kind == "street":  # forced bets are all posted before the first street starts
            break
        if op.kind == "post_ante" and op.detail:
            dead[op.seat] = dead.get(op.seat, 0) + op.amount
    return dead


def _award(w: Work, showdown: bool) -> None:
    live = [i for i in range(w.n) if not w.folded[i]]
    strength = None
    if showdown and len(live) > 1:
        order = [(w.button + 1 + k) % w.n for k in range(w.n)]
        strength = {}
        for i in order:
            if not w.folded[i]:
                w.shown = with_item(w.shown, i, w.holes[i])
                w.emit(Operation("show", seat=w.seats[i], cards=w.shown[i], detail="showdown"))
                strength[w.seats[i]] = strength_of(w, i)
    else:
        showdown = False
    dead = table_antes(w.operations or w.ops)
    result = settle(
        {w.seats[i]: w.contrib[i] for i in range(w.n)},
        [w.seats[i] for i in live],
        strength,
        [w.seats[(w.button + 1 + k) % w.n] for k in range(w.n)],
        dead,
    )
    for a in result.awards:
        w.emit(Operation("award", seat=a.seat, amount=a.amount, pot=a.pot_index, detail=a.reason))
    payouts = [result.payouts.get(s, 0) for s in w.seats]
    for i in range(w.n):
        w.stacks[i] += payouts[i]
    w.payouts = tuple(payouts)
    w.showdown = showdown
    w.phase = "over"
    w.actor = None
    w.turn_id += 1
    w.preactions = [None] * w.n
    w.emit(Operation("hand_end", detail="showdown" if showdown else "uncontested"))


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
    if st.phase == "over":
        raise IllegalAction("hand_over", "the hand is over")
    i = _player(st, seat)
    if st.actor != i:
        raise IllegalAction("not_your_turn", f"it is seat {st.actor_seat}'s turn")
    if not isinstance(action, Action):
        raise IllegalAction("unknown_action", f"not an Action: {action!r}")
    if st.phase == "draw":
        if action.kind != "draw":
            raise IllegalAction("not_betting_phase", "this is the draw: use draw(cards)")
        return _draw(st, i, action, reason)
    if action.kind == "draw":
        raise IllegalAction("not_draw_phase", "draw only in the draw round")
    kind, total = betting.resolve(st, i, action)
    w = Work(st)
    s = w.seats[i]
    if kind == "fold":
        w.folded[i] = True
        w.preactions[i] = None
        w.emit(Operation("fold", seat=s, street=st.street_name, detail=reason))
    elif kind == "check":
        w.acted[i] = True
        w.acted_level[i] = betting.to_match(w)
        w.emit(Operation("check", seat=s, street=st.street_name, detail=reason))
    else:
        _commit(w, i, total, reason)
    _advance(w, (i + 1) % w.n)
    return _finish(w)


def _commit(w: Work, i: int, total: int, reason: str) -> None:
    tm = betting.to_match(w)
    add = total - w.bets[i]
    assert 0 < add <= w.stacks[i], (add, w.stacks[i])
    if total > tm:
        kind = "bet" if tm == 0 else "raise"
        increment = total - tm
        if increment >= w.last_full_raise:
            w.last_full_raise = increment if w.structure is not Structure.FIXED_LIMIT else w.last_full_raise
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
    w.emit(Operation(kind, seat=w.seats[i], amount=add, to=total, street=w.profile.streets[w.street].name,
                     all_in=w.stacks[i] == 0, detail=reason))


def preview(st: HandState, seat: int, action: Action) -> tuple[Operation, ...]:
    """The operations ``apply`` would perform, without keeping the new state."""
    return apply(st, seat, action).ops


# ---------------------------------------------------------------------------------
# draw
# ---------------------------------------------------------------------------------


def _draw(st: HandState, i: int, action: Action, reason: str) -> Step:
    hand = st.holes[i]
    discard = tuple(action.cards)
    if action.amount is not None:
        raise IllegalAction("amount_not_allowed", "draw takes cards, not an amount")
    if len(set(discard)) != len(discard) or any(c not in hand for c in discard):
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
            random.Random(repr((w.reshuffle_seed, w.turn_id))).shuffle(pile)
            w.discards = ()
            w.deck = Deck(tuple(pile))
            more, w.deck = w.deck.deal(need - take)
            new = new + more
        w.discards = w.discards + discard
    kept = tuple(c for c in hand if c not in discard)
    w.holes = with_item(w.holes, i, kept + new)
    w.drawn = with_item(w.drawn, i, True)
    w.emit(Operation("draw", seat=w.seats[i], cards=new, discarded=discard, amount=need,
                     street="draw", detail=reason))
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
    if st.profile.leave_policy == "queue_check_fold":
        if st.actor == i:
            marked = Work(st)
            marked.leaving = with_item(marked.leaving, i, True)
            return apply(marked.freeze(), seat, _safe_action(st, i), reason="leave")
        w = Work(st)
        w.leaving = with_item(w.leaving, i, True)
        return _finish(w)
    if st.actor == i:
        return apply(st, seat, Action("fold"), reason="leave")
    w = Work(st)
    w.folded[i] = True
    w.leaving = with_item(w.leaving, i, True)
    w.preactions[i] = None
    w.emit(Operation("fold", seat=seat, street=st.street_name, detail="leave"))
    _advance(w, w.actor, keep_turn=True)
    return _finish(w)


def show(st: HandState, seat: int) -> Step:
    """After the hand, a player may show their cards voluntarily."""
    i = _player(st, seat)
    if st.phase != "over":
        raise IllegalAction("cannot_show", "cards can be shown once the hand is over")
    if st.shown[i] is not None:
        raise IllegalAction("cannot_show", "already shown")
    w = Work(st)
    w.shown = with_item(w.shown, i, w.holes[i])
    w.emit(Operation("show", seat=seat, cards=w.shown[i], detail="voluntary"))
    return _finish(w)
