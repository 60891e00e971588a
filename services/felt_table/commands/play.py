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


def current(table: Table, pid: str, hand_id: str | None = None) -> tuple[Seat, HandState]:
    """The player's seat and the running hand, or why this player cannot act in it."""
    seat = table.require_seat(pid)
    hand = table.state
    if hand is None or hand.phase == "over" or (hand_id is not None and hand_id != hand.hand_id):
        raise BusError(ErrorCode.HAND_CLOSED, "that hand is over", hand_id=hand_id)
    if hand.index_of(seat.number) is None:
        raise BusError(ErrorCode.NOT_SEATED, "not dealt in this hand (waiting for the next deal)")
    return seat, hand


def to_action(table: Table, command: Act, hand: HandState, seat: int) -> Action:
    """The wire action as an engine action (ante-nl-1 speaks `hit` and chips-to-add `bet`)."""
    kind = command.action
    problem = shape_problem(kind, command.amount, bool(command.cards))
    if problem:
        raise BusError(ErrorCode.MALFORMED, problem)
    add_now = table.profile.amount_convention == "add_now"
    try:
        if kind == "hit" or (add_now and kind == "bet"):
            if not add_now:
                raise BusError(ErrorCode.ILLEGAL_ACTION, "hit is the ante-nl-1 protocol", reason="unknown_action")
            return betting.from_add_now(hand, seat, kind, command.amount)
        if kind == "draw":
            try:
                cards = parse_cards(list(command.cards))
            except (ValueError, KeyError) as exc:
                raise BusError(ErrorCode.MALFORMED, f"bad cards: {exc}") from None
            return Action("draw", None, cards)
        return Action(kind, command.amount)
    except IllegalAction as exc:
        raise engine_error(exc) from None


async def act(table: Table, command: Act) -> TableResult:
    seat, hand = current(table, command.participant_id, command.hand_id)
    if command.seat is not None and command.seat != seat.number:
        raise BusError(ErrorCode.FORBIDDEN, "you can only act for your own seat", seat=command.seat)
    if command.turn_id is not None and command.turn_id != hand.turn_id:
        raise BusError(ErrorCode.STALE_TURN, f"turn {command.turn_id} is over", turn_id=hand.turn_id)
    action = to_action(table, command, hand, seat.number)
    try:
        nxt = apply(hand, seat.number, action)
    except IllegalAction as exc:
        raise engine_error(exc) from None
    wager = sum(op.amount for op in nxt.ops if op.kind in COMMIT_KINDS and op.seat == seat.number)
    if (
        wager > 0 and table.balance_plays and seat.limits_session is not None
    ):  # elsewhere the hand's allowance bounds it
        await table.sessions.allow_wager(seat, hand.hand_id or "", table.wallet.commit_seq, wager)
    seat.timeouts = 0
    await hands.step(table, nxt)
    return table.result(view=view(table, command.participant_id) if command.with_view else None)


async def preaction(table: Table, command: SetPreAction) -> TableResult:
    seat, hand = current(table, command.participant_id)
    try:
        table.state = set_preaction(hand, seat.number, command.preaction)
    except IllegalAction as exc:
        raise engine_error(exc) from None
    table.emit(
        "preaction",
        private_to=seat.pid,
        hand_id=hand.hand_id,
        seat=seat.number,
        participant_id=seat.pid,
        detail=command.preaction or "",
    )
    auto = auto_action(table.state) if table.state.actor_seat == seat.number else None
    if auto is not None:
        await hands.step(table, apply(table.state, seat.number, auto.action, reason="preaction"))
    return table.result()


async def show(table: Table, command: Show) -> TableResult:
    seat = table.require_seat(command.participant_id)
    hand = table.state
    if command.hand_id is not None and (hand is None or hand.hand_id != command.hand_id):
        raise BusError(ErrorCode.HAND_CLOSED, "that hand's cards can no longer be shown", hand_id=command.hand_id)
    if table.hand_running and table.played(seat):
        raise BusError(ErrorCode.ILLEGAL_ACTION, "cards can be shown once the hand is over", reason="hand_running")
    if hand is None or not table.showable(seat):
        raise BusError(
            ErrorCode.ILLEGAL_ACTION,
            "nothing to show: not dealt in the last hand, or its cards are shown",
            reason="nothing_to_show",
        )
    nxt = engine_show(hand, seat.number)  # the guards above are the engine's own (phase over, not yet shown)
    table.state = nxt.state
    for op in nxt.ops:
        table.emit(
            "show",
            hand_id=hand.hand_id,
            seat=seat.number,
            participant_id=seat.pid,
            cards=[card_str(card) for card in op.cards],
            detail="voluntary",
        )
    return table.result()


def _running_turn(table: Table, deadline: TurnDeadline) -> tuple[HandState, int] | None:
    """The hand and its actor's index when `d` is the turn still running (None: stale)."""
    hand = table.state
    if hand is None or hand.phase == "over" or hand.actor is None:
        return None
    if (hand.hand_id, hand.turn_id, hand.actor_seat) != (deadline.hand_id, deadline.turn, deadline.seat):
        return None
    return hand, hand.actor


async def turn_over(table: Table, deadline: TurnDeadline) -> TableResult:
    """The turn deadline fired: time the player out unless that turn is already over."""
    running = _running_turn(table, deadline)
    if running is None:
        table.stale_ignored += 1
        return table.result("stale")
    try:
        nxt = engine_timeout(running[0], deadline.seat, deadline.turn)
    except IllegalAction:
        table.stale_ignored += 1
        return table.result("stale")
    await hands.step(table, nxt)
    await seating.timed_out(table, deadline.seat, table.hand_participants.get(deadline.seat))
    return table.result("timeout")


async def bank_started(table: Table, started: BankStarted) -> TableResult:
    """The turn clock expired and the timer runs the actor's time bank: the deadline moves to
    the bank's end and clients see it (`time_bank` event). Stale ones are ignored."""
    running = _running_turn(table, started.deadline)
    if running is None or table.banks.policy is None:
        table.stale_ignored += 1
        return table.result("stale")
    hand, actor = running
    seat = started.deadline.seat
    pid = table.hand_participants.get(seat)
    table.banks.run = BankRun(hand.hand_id or "", hand.turn_id, pid or "", started.turn_due_at, started.bank_seconds)
    table.deadline = started.due_at
    info = TurnInfo(
        hand_id=hand.hand_id or "",
        turn_id=hand.turn_id,
        seat=seat,
        participant_id=pid,
        deadline=started.due_at,
        legal_actions=legal_model(betting.legal_actions_at(hand, actor)),
        time_bank_seconds=started.bank_seconds,
    )
    table.emit(
        "time_bank",
        hand_id=hand.hand_id,
        seat=seat,
        participant_id=pid,
        detail=f"{started.bank_seconds:g}",
        turn=info,
    )
    return table.result()


COMMANDS: dict[type, Handler] = {Act: act, SetPreAction: preaction, Show: show, BankStarted: bank_started}
