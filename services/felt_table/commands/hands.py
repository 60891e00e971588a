"""Driving hands through the engine: dealing, accepting steps, automatic pre-actions, turns
with their deadlines, settlement, and what happens between hands.

The engine decides every rule; this module only orders the calls. At a buy-in table the hand's
commitments stay in its state (each seat bounded by the allowance limits granted at the deal)
and move once, with the settlement; where the balance plays (`ante-nl-1`) a step's chips go to
the wallet's escrow before `t.state` takes the step. A step's operations become events only
once it is kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from datetime import timedelta
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.table import StartMode, TurnInfo, hand_id_for
from felt_contracts.deadlines import IntermissionDeadline, TurnDeadline
from felt_engine import betting
from felt_engine.cards import Deck, card_str
from felt_engine.errors import IllegalAction
from felt_engine.hand import Step, apply, next_button, start_hand
from felt_engine.operations import COMMIT_KINDS
from felt_engine.preactions import auto_action, set_preaction
from felt_runtime.bus import BusError
from felt_contracts.wallet import Payout, Settle, Wager
from felt_engine.state import HandState
from felt_table.commands import closing, ending, recovery, seat_sessions
from felt_table.ports.retry import retryable
from felt_table.model import history, hosting
from felt_table.model.results import results_of
from felt_table.ports.deadlines import bank_use
from felt_table.model.table import Table, now
from felt_table.commands.views import legal_model

log = logging.getLogger("felt.table.hands")


async def schedule_next_hand(table: Table) -> None:
    """Auto-start tables: set the intermission deadline once two players can play. A table due
    to close (its hand or time limit, an operator) closes here instead."""
    if await closing.close_if_due(table):
        return
    if (
        table.config.start_mode is not StartMode.AUTO
        or table.hand_running
        or table.intermission.next_hand_at is not None
        or not table.can_deal
    ):
        return
    if len(table.eligible(need_ready=False)) < 2:
        return
    table.intermission.epoch += 1
    due = await table.timers.schedule(
        IntermissionDeadline(table_id=table.tid, epoch=table.intermission.epoch), table.intermission.seconds
    )
    table.intermission.next_hand_at = due or now() + timedelta(seconds=table.intermission.seconds)


async def intermission_over(table: Table, epoch: int) -> None:
    if epoch != table.intermission.epoch or table.intermission.next_hand_at is None:
        table.stale_ignored += 1
        return
    table.intermission.next_hand_at = None
    if not table.hand_running:
        if not await deal(table, need_ready=False):
            await schedule_next_hand(table)


async def deal(table: Table, *, need_ready: bool) -> bool:
    """Start a hand with the eligible players; False if fewer than two can play, or if the
    table must wait (the last hand's end unanswered, or a service did not answer)."""
    if not table.can_deal or table.closed or closing.reason(table) is not None:
        return False
    hosting.apply_next(table)  # forced bets the host set while the last hand ran
    hand_id = hand_id_for(table.tid, uuid.uuid4().hex[:16])
    try:
        if table.needs_reconcile and not await recovery.reconcile(table):
            raise BusError(ErrorCode.UNAVAILABLE, "the wallet did not answer")
        for seat in list(table.seats.values()):
            await seat_sessions.top_up(table, seat, hand_id)
        if table.balance_plays:  # the account balance plays: read it now
            readers = table.eligible(need_ready=need_ready) + [
                other for other in table.seats.values() if other.stack < table.stakes.ante
            ]
            balances = await asyncio.gather(
                *(table.wallet.balance(seat.pid) for seat in readers), return_exceptions=True
            )
            for seat, bal in zip(readers, balances):
                if isinstance(bal, BaseException):
                    if not isinstance(bal, BusError) or retryable(bal):
                        raise bal
                    continue
                seat.stack = bal.available
    except BusError as exc:
        if not retryable(exc):
            raise
        recovery.ping(table, "wallet", resumed)
        return False
    players = table.eligible(need_ready=need_ready)
    deck = fresh = Deck.shuffled()
    approved: dict[tuple[int, int], int | None] = {}  # (seat, forced bet) limits allowed -> its allowance
    while True:  # the forced bets depend on who is dealt in: ask again until nobody is refused
        dealt = players[: table.profile.max_seats]
        if len(dealt) < 2:
            return False
        button = next_button(table.button, [seat.number for seat in dealt])
        stacks = {seat.number: seat.stack for seat in dealt}
        if table.duplicate is not None:  # a match table: mirrored pairs of deals, equally deep
            stacks = table.duplicate.playing(stacks)
            deck = table.duplicate.deck(table.profile, table.stakes, stacks, button, fresh)
        step = start_hand(table.profile, table.stakes, stacks, button, deck, hand_id=hand_id)
        forced = {seat.number: 0 for seat in dealt}
        for op in step.ops:
            if op.kind in COMMIT_KINDS and op.amount and op.seat is not None:
                forced[op.seat] += op.amount
        ask = [
            seat
            for seat in dealt
            if seat.limits_session is not None and (seat.number, forced[seat.number]) not in approved
        ]
        answers = await table.sessions.answers(
            [
                table.sessions.allow_hand(
                    seat, hand_id, forced[seat.number], None if table.balance_plays else seat.stack
                )
                for seat in ask
            ]
        )
        if any(isinstance(answer, BusError) and retryable(answer) for answer in answers):
            recovery.ping(table, "limits", resumed)
            return False
        refused = [(seat, answer) for seat, answer in zip(ask, answers) if isinstance(answer, BusError)]
        approved.update(
            ((seat.number, forced[seat.number]), answer)
            for seat, answer in zip(ask, answers)
            if not isinstance(answer, BusError)
        )
        if not refused:
            break
        for seat, refusal in refused:
            players.remove(seat)
            if refusal.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
                await seat_sessions.close(table, seat, reason="limit")
    allowances = {
        seat.number: allowance
        for seat in dealt
        if (allowance := approved.get((seat.number, forced[seat.number]))) is not None
    }
    if allowances:  # the engine bounds each seat's actions by what its wager caps allow (docs/limits.md)
        step = start_hand(
            table.profile,
            table.stakes,
            stacks,
            button,
            deck,
            hand_id=hand_id,
            allowances=allowances,
        )
    table.button = button
    table.wallet.new_hand()
    table.hand_participants = {seat.number: seat.pid for seat in dealt}
    table.hand_started_at = now().isoformat()
    try:
        await table.wallet.commit(step, hand_id, table.hand_participants, table.hand_plays())
    except BusError as exc:
        log.warning("forced bets refused, hand cancelled: %s", exc.message)
        table.emit("hand_cancelled", hand_id=hand_id, detail=f"forced bets refused: {exc.code.value}")
        await ending.cancel(table, hand_id, after_hand)
        return False
    table.state = step.state
    if table.hosting.go:  # a held table's go is spent on this hand
        table.hosting.go = False
        await hosting.save(table)
    if table.duplicate is not None:
        table.duplicate.dealt(deck, button, stacks)
    if table.banks.policy is not None:  # once per hand (idempotent per hand id at the timer)
        pids = [
            pid for pid in table.hand_participants.values() if bank_use(table.tid, pid, table.banks.policy) is not None
        ]
        refilled = await table.timers.refill_banks(hand_id, pids, table.banks.policy) if pids else None
        table.banks.balances.update(refilled or {})
    await accepted(table, step.ops)
    return True


async def resumed(table: Table, service: str) -> None:
    """A service answers again: stacks follow the wallet, lost deadlines are set again, and
    an auto-start table schedules its next hand."""
    if service == "wallet":
        table.needs_reconcile = True
        if not await recovery.reconcile(table):
            recovery.ping(table, "wallet", resumed)
            return
        if not table.hand_running:
            await close_leavers(table)
    if service == "timer":
        hand = table.state
        if table.hand_running and hand is not None and hand.actor_seat is not None and table.deadline is not None:
            left = max(0.05, (table.deadline - now()).total_seconds())
            table.timers.schedule_soon(
                TurnDeadline(table_id=table.tid, hand_id=hand.hand_id, turn=hand.turn_id, seat=hand.actor_seat),
                left,
                bank_use(table.tid, table.hand_participants.get(hand.actor_seat), table.banks.policy),
            )
        table.intermission.next_hand_at = None  # an intermission deadline the timer never got
    await schedule_next_hand(table)


class HandAborted(BusError):
    """The wallet did not answer a step's escrow commit: the hand was cancelled (refunded)."""

    def __init__(self, hand_id: str) -> None:
        super().__init__(
            ErrorCode.UNAVAILABLE,
            "the wallet did not answer: the hand is cancelled and refunded",
            reason="hand_cancelled",
            hand_id=hand_id,
        )


async def step(table: Table, move: Step) -> None:
    """Escrow a step's chips, then keep it (the table's state is untouched on refusal). If the
    wallet does not answer, whether the chips arrived is unknown: the hand is aborted."""
    assert table.state is not None and table.state.hand_id is not None
    try:
        await table.wallet.commit(move, table.state.hand_id, table.hand_participants, table.hand_plays())
    except BusError as exc:
        if retryable(exc):
            hand_id = table.state.hand_id
            await abort(table, exc)
            raise HandAborted(hand_id) from None
        raise
    table.state = move.state
    await accepted(table, move.ops)


async def abort(table: Table, exc: BusError) -> None:
    """Cancel the running hand (a durable cancel: refunded exactly what reached the escrow);
    stacks go back to where the hand started them."""
    hand = table.state
    assert hand is not None and hand.hand_id is not None
    log.warning("hand aborted: %s", exc.message, extra={"table_id": table.tid, "hand_id": hand.hand_id})
    table.emit("hand_cancelled", hand_id=hand.hand_id, detail=f"escrow unanswered: {exc.code.value}")
    table.events.finished_hand = _record(table, hand, "cancelled")
    for i, number in enumerate(hand.seats):
        seat = table.seats.get(number)
        if seat is not None and seat.pid == table.hand_participants.get(number):
            seat.stack = table.stack_after(number, hand.starting_stacks[i])
    table.state = None
    table.deadline = None
    table.banks.end_run()
    await ending.cancel(table, hand.hand_id, after_hand)


async def accepted(table: Table, ops: Any) -> None:
    """Announce a kept step, then play the next automatic action (pre-action, leaver) or open the turn."""
    hand = table.state
    assert hand is not None
    for op in ops:
        if op.kind == "burn":
            continue
        pid = table.hand_participants.get(op.seat) if op.seat is not None else None
        extra: dict[str, Any] = {}
        if op.kind in ("hand_start", "hand_end"):
            extra["stacks"] = (
                {str(number): stack for number, stack in zip(hand.seats, hand.stacks)}
                if op.kind == "hand_end"
                else {str(number): stack for number, stack in zip(hand.seats, hand.starting_stacks)}
            )
        table.emit(
            op.kind,
            hand_id=hand.hand_id,
            seat=op.seat,
            participant_id=pid,
            amount=op.amount,
            to=op.to,
            cards=[card_str(card) for card in op.cards],
            discarded=[card_str(card) for card in op.discarded],
            street=op.street,
            all_in=op.all_in,
            pot=op.pot,
            detail=op.detail,
            **extra,
        )
    if hand.phase == "over":
        await finish(table)
        return
    auto = auto_action(hand)
    if auto is not None:
        try:
            await step(table, apply(hand, auto.seat, auto.action, reason=auto.reason))
            return
        except HandAborted:
            raise
        except (IllegalAction, BusError) as exc:
            log.warning("auto action failed: %s", exc)
            table.state = set_preaction(hand, auto.seat, None) if not hand.leaving[hand.actor or 0] else hand
    turn(table)


#: an absent player's turn at a tournament table: the turn clock's check-or-fold, at once
ABSENT_TURN_SECONDS = 0.1


def turn(table: Table) -> None:
    """Open the actor's turn: its deadline (scheduled in order, not awaited: the deadline is ours
    to state) and a `turn` event with the legal actions."""
    hand = table.state
    assert hand is not None and hand.actor is not None
    seat = hand.seats[hand.actor]
    pid = table.hand_participants.get(seat)
    table.banks.end_run()
    sitting = table.seats.get(seat)
    blinded_out = table.tournament and sitting is not None and table.absent(sitting)
    seconds = ABSENT_TURN_SECONDS if blinded_out else table.turn_seconds  # checked or folded at once
    table.timers.schedule_soon(
        TurnDeadline(table_id=table.tid, hand_id=hand.hand_id, turn=hand.turn_id, seat=seat),
        seconds,
        None if blinded_out else bank_use(table.tid, pid, table.banks.policy),
    )
    table.deadline = now() + timedelta(seconds=seconds)
    legal = legal_model(betting.legal_actions_at(hand, hand.actor))
    info = TurnInfo(
        hand_id=hand.hand_id or "",
        turn_id=hand.turn_id,
        seat=seat,
        participant_id=pid,
        deadline=table.deadline,
        legal_actions=legal,
        time_bank_seconds=table.banks.shown(pid),
    )
    table.emit("turn", hand_id=hand.hand_id, seat=seat, participant_id=info.participant_id, turn=info)


async def finish(table: Table) -> None:
    """The hand is over: its settlement (one wallet request) is recorded, published and sent
    until the wallet answers (`felt_table.commands.ending`); a finished hand is never cancelled."""
    hand = table.state
    assert hand is not None and hand.payouts is not None and hand.hand_id is not None
    payouts: dict[str, int] = {}
    returns: dict[str, int] = {}
    for op in hand.operations:
        if op.kind == "award" and op.amount and op.seat is not None:
            pid = table.hand_participants[op.seat]
            bucket = returns if op.detail in ("uncalled", "refund") else payouts
            bucket[pid] = bucket.get(pid, 0) + op.amount
    table.events.finished_hand = _record(table, hand, "settled")
    table.hands_played += 1
    table.deadline = None
    table.banks.end_run()
    for i, number in enumerate(hand.seats):  # stacks after the hand
        seat = table.seats.get(number)
        if seat is not None and seat.pid == table.hand_participants.get(number):
            seat.stack = table.stack_after(number, hand.stacks[i])
    # a buy-in table escrowed nothing during the hand: the settlement carries every dealt seat's wager
    wagers = (
        []
        if table.balance_plays
        else [
            Wager(account_id=table.hand_participants[number], amount=committed)
            for number, committed in zip(hand.seats, hand.contrib)
        ]
    )
    await ending.end(
        table,
        Settle(
            message_id=f"{hand.hand_id}:settle",
            table_id=table.tid,
            hand_id=hand.hand_id,
            payouts=[Payout(account_id=account, amount=amount) for account, amount in payouts.items()],
            returns=[Payout(account_id=account, amount=amount) for account, amount in returns.items()],
            wagers=wagers,
        ),
        after_hand,
    )


def _record(table: Table, hand: HandState, status: str) -> dict[str, Any]:
    """The `table_hands` row of a hand that ended (`status`: settled | cancelled)."""
    assert hand.hand_id is not None
    ended_at = now()
    rec = history.record_of(
        hand,
        table.tid,
        status,
        table.hand_participants,
        table.hand_started_at,
        ended_at.isoformat(),
        tournament=history.tournament_of(table.config),
    )
    return {
        "hand_id": hand.hand_id,
        "table_id": table.tid,
        "rules_version": hand.rules_version,
        "status": status,
        "ended_at": ended_at,
        "participants": json.dumps(sorted(table.hand_participants.values())),
        "record": json.dumps(rec),
        "results": results_of(hand, table.tid, table.hand_participants, ended_at) if status == "settled" else [],
    }


async def close_leavers(table: Table) -> None:
    """Seats that left during the hand (or while its end was unanswered) are cashed out now;
    if the wallet does not answer they stay `leaving` (never dealt) until it does."""
    for seat in [other for other in table.seats.values() if other.leaving]:
        try:
            await seat_sessions.close(table, seat, reason=seat.leave_reason)
        except BusError as exc:
            if not retryable(exc):
                raise
            recovery.ping(table, "wallet", resumed)
            return


async def after_hand(table: Table) -> None:
    """Stacks follow the wallet if something failed, leavers go, limits may close a session,
    busted stacks leave; then the next hand may be scheduled."""
    hosting.apply_next(table)
    if table.needs_reconcile and not await recovery.reconcile(table):
        recovery.ping(table, "wallet", resumed)
    hand = table.state
    seats = list(table.seats.values())
    asked = [
        seat
        for seat in seats
        if not seat.leaving and table.played(seat) and seat.limits_session is not None and table.deps.settings.limits
    ]
    if asked:
        assert hand is not None and hand.hand_id is not None
        hand_id = hand.hand_id
        refusals = dict(
            zip(
                (seat.number for seat in asked),
                await table.sessions.refusals([table.sessions.allow_continue(hand_id, seat) for seat in asked]),
            )
        )
    else:
        refusals = {}
    await close_leavers(table)
    for seat in list(table.seats.values()):
        if not table.played(seat):
            continue
        exc = refusals.get(seat.number)
        if exc is not None and exc.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
            await seat_sessions.close(table, seat, reason="limit")
            continue
        if not table.balance_plays and seat.stack == 0 and not await seat_sessions.can_rebuy(table, seat):
            await seat_sessions.close(table, seat, reason="busted")
    # everyone who played is free to go elsewhere once the hand settled
    for pid in table.hand_participants.values():
        if table.seat_of(pid) is None:
            await table.sessions.release(pid)
    await schedule_next_hand(table)
