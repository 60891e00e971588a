"""A seated player's moves in the running hand: act, pre-actions, voluntary show, and the turn
deadline (a timeout is the engine's move for the player). Guards come first so a refused
command changes nothing."""

from __future__ import annotations


from felt_contracts.deadlines import TurnDeadline
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, SetPreAction, Show, TableResult, TurnInfo
from felt_engine import betting
from felt_engine.actions import Action, shape_problem
from felt_engine.cards import card_str, parse_cards
from felt_engine.errors import IllegalAction
from felt_engine.operations import COMMIT_KINDS
from felt_engine.hand import apply, show as engine_show, timeout as engine_timeout
from felt_engine.preactions import auto_action, set_preaction
from felt_engine.state import HandState
from felt_runtime.bus import BusError
from felt_table.commands import hands, seating
from felt_table.ports.deadlines import BankStarted
from felt_table.model.table import BankRun, Handler, Seat, Table, engine_error
from felt_table.commands.views import legal_model, view


def current(t: Table, pid: str, hand_id: str | None = None) -> tuple[Seat, HandState]:
    """The player's seat and the running hand, or why this player cannot act in it."""
    s = t.require_seat(pid)
    st = t.state
    if st is None or st.phase == "over" or (hand_id is not None and hand_id != st.hand_id):
        raise BusError(ErrorCode.HAND_CLOSED, "that hand is over", hand_id=hand_id)
    if st.index_of(s.seat) is None:
        raise BusError(ErrorCode.NOT_SEATED, "not dealt in this hand (waiting for the next deal)")
    return s, st


def to_action(t: Table, c: Act, st: HandState, seat: int) -> Action:
    """The wire action as an engine action (ante-nl-1 speaks `hit` and chips-to-add `bet`)."""
    kind = c.action
    problem = shape_problem(kind, c.amount, bool(c.cards))
    if problem:
        raise BusError(ErrorCode.MALFORMED, problem)
    add_now = t.profile.amount_convention == "add_now"
    try:
        if kind == "hit" or (add_now and kind == "bet"):
            if not add_now:
                raise BusError(ErrorCode.ILLEGAL_ACTION, "hit is the ante-nl-1 protocol", reason="unknown_action")
            return betting.from_add_now(st, seat, kind, c.amount)
        if kind == "draw":
            try:
                cards = parse_cards(list(c.cards))
            except (ValueError, KeyError) as exc:
                raise BusError(ErrorCode.MALFORMED, f"bad cards: {exc}") from None
            return Action("draw", None, cards)
        return Action(kind, c.amount)
    except IllegalAction as exc:
        raise engine_error(exc) from None


async def act(t: Table, c: Act) -> TableResult:
    s, st = current(t, c.participant_id, c.hand_id)
    if c.seat is not None and c.seat != s.seat:
        raise BusError(ErrorCode.FORBIDDEN, "you can only act for your own seat", seat=c.seat)
    if c.turn_id is not None and c.turn_id != st.turn_id:
        raise BusError(ErrorCode.STALE_TURN, f"turn {c.turn_id} is over", turn_id=st.turn_id)
    action = to_action(t, c, st, s.seat)
    try:
        nxt = apply(st, s.seat, action)
    except IllegalAction as exc:
        raise engine_error(exc) from None
    wager = sum(op.amount for op in nxt.ops if op.kind in COMMIT_KINDS and op.seat == s.seat)
    if wager > 0 and t.balance_plays and s.limits_session is not None:  # elsewhere the hand's allowance bounds it
        await t.sessions.allow_wager(s, st.hand_id or "", t.wallet.commit_seq, wager)
    s.timeouts = 0
    await hands.step(t, nxt)
    return t.result(view=view(t, c.participant_id) if c.with_view else None)


async def preaction(t: Table, c: SetPreAction) -> TableResult:
    s, st = current(t, c.participant_id)
    try:
        t.state = set_preaction(st, s.seat, c.preaction)
    except IllegalAction as exc:
        raise engine_error(exc) from None
    t.emit(
        "preaction", private_to=s.pid, hand_id=st.hand_id, seat=s.seat, participant_id=s.pid, detail=c.preaction or ""
    )
    auto = auto_action(t.state) if t.state.actor_seat == s.seat else None
    if auto is not None:
        await hands.step(t, apply(t.state, s.seat, auto.action, reason="preaction"))
    return t.result()


async def show(t: Table, c: Show) -> TableResult:
    s = t.require_seat(c.participant_id)
    st = t.state
    if c.hand_id is not None and (st is None or st.hand_id != c.hand_id):
        raise BusError(ErrorCode.HAND_CLOSED, "that hand's cards can no longer be shown", hand_id=c.hand_id)
    if t.hand_running and t.played(s):
        raise BusError(ErrorCode.ILLEGAL_ACTION, "cards can be shown once the hand is over", reason="hand_running")
    if st is None or not t.showable(s):
        raise BusError(
            ErrorCode.ILLEGAL_ACTION,
            "nothing to show: not dealt in the last hand, or its cards are shown",
            reason="nothing_to_show",
        )
    nxt = engine_show(st, s.seat)  # the guards above are the engine's own (phase over, not yet shown)
    t.state = nxt.state
    for op in nxt.ops:
        t.emit(
            "show",
            hand_id=st.hand_id,
            seat=s.seat,
            participant_id=s.pid,
            cards=[card_str(x) for x in op.cards],
            detail="voluntary",
        )
    return t.result()


def _running_turn(t: Table, d: TurnDeadline) -> tuple[HandState, int] | None:
    """The hand and its actor's index when `d` is the turn still running (None: stale)."""
    st = t.state
    if st is None or st.phase == "over" or st.actor is None:
        return None
    if (st.hand_id, st.turn_id, st.actor_seat) != (d.hand_id, d.turn, d.seat):
        return None
    return st, st.actor


async def turn_over(t: Table, d: TurnDeadline) -> TableResult:
    """The turn deadline fired: time the player out unless that turn is already over."""
    running = _running_turn(t, d)
    if running is None:
        t.stale_ignored += 1
        return t.result("stale")
    try:
        nxt = engine_timeout(running[0], d.seat, d.turn)
    except IllegalAction:
        t.stale_ignored += 1
        return t.result("stale")
    await hands.step(t, nxt)
    await seating.timed_out(t, d.seat, t.hand_participants.get(d.seat))
    return t.result("timeout")


async def bank_started(t: Table, b: BankStarted) -> TableResult:
    """The turn clock expired and the timer runs the actor's time bank: the deadline moves to
    the bank's end and clients see it (`time_bank` event). Stale ones are ignored."""
    running = _running_turn(t, b.deadline)
    if running is None or t.time_bank is None:
        t.stale_ignored += 1
        return t.result("stale")
    st, actor = running
    seat = b.deadline.seat
    pid = t.hand_participants.get(seat)
    t.bank_run = BankRun(st.hand_id or "", st.turn_id, pid or "", b.turn_due_at, b.bank_seconds)
    t.deadline = b.due_at
    info = TurnInfo(
        hand_id=st.hand_id or "",
        turn_id=st.turn_id,
        seat=seat,
        participant_id=pid,
        deadline=b.due_at,
        legal_actions=legal_model(betting.legal_actions_at(st, actor)),
        time_bank_seconds=b.bank_seconds,
    )
    t.emit(
        "time_bank",
        hand_id=st.hand_id,
        seat=seat,
        participant_id=pid,
        detail=f"{b.bank_seconds:g}",
        turn=info,
    )
    return t.result()


COMMANDS: dict[type, Handler] = {Act: act, SetPreAction: preaction, Show: show, BankStarted: bank_started}
