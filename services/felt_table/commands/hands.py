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
from felt_table.model import history
from felt_table.ports.deadlines import bank_use
from felt_table.model.table import Table, now
from felt_table.commands.views import legal_model

log = logging.getLogger("felt.table.hands")


async def schedule_next_hand(t: Table) -> None:
    """Auto-start tables: set the intermission deadline once two players can play. A table due
    to close (its hand or time limit, an operator) closes here instead."""
    if await closing.close_if_due(t):
        return
    if t.config.start_mode is not StartMode.AUTO or t.hand_running or t.next_hand_at is not None or not t.can_deal:
        return
    if len(t.eligible(need_ready=False)) < 2:
        return
    t.intermission_epoch += 1
    due = await t.timers.schedule(
        IntermissionDeadline(table_id=t.tid, epoch=t.intermission_epoch), t.intermission_seconds
    )
    t.next_hand_at = due or now() + timedelta(seconds=t.intermission_seconds)


async def intermission_over(t: Table, epoch: int) -> None:
    if epoch != t.intermission_epoch or t.next_hand_at is None:
        t.stale_ignored += 1
        return
    t.next_hand_at = None
    if not t.hand_running:
        if not await deal(t, need_ready=False):
            await schedule_next_hand(t)


async def deal(t: Table, *, need_ready: bool) -> bool:
    """Start a hand with the eligible players; False if fewer than two can play, or if the
    table must wait (the last hand's end unanswered, or a service did not answer)."""
    if not t.can_deal or t.closed or closing.reason(t) is not None:
        return False
    hand_id = hand_id_for(t.tid, uuid.uuid4().hex[:16])
    try:
        if t.needs_reconcile and not await recovery.reconcile(t):
            raise BusError(ErrorCode.UNAVAILABLE, "the wallet did not answer")
        for s in list(t.seats.values()):
            await seat_sessions.top_up(t, s, hand_id)
        if t.balance_plays:  # the account balance plays: read it now
            readers = t.eligible(need_ready=need_ready) + [x for x in t.seats.values() if x.stack < t.stakes.ante]
            balances = await asyncio.gather(*(t.wallet.balance(s.pid) for s in readers), return_exceptions=True)
            for s, bal in zip(readers, balances):
                if isinstance(bal, BaseException):
                    if not isinstance(bal, BusError) or retryable(bal):
                        raise bal
                    continue
                s.stack = bal.available
    except BusError as exc:
        if not retryable(exc):
            raise
        recovery.ping(t, "wallet", resumed)
        return False
    players = t.eligible(need_ready=need_ready)
    deck = Deck.shuffled()
    approved: dict[tuple[int, int], int | None] = {}  # (seat, forced bet) limits allowed -> its allowance
    while True:  # the forced bets depend on who is dealt in: ask again until nobody is refused
        dealt = players[: t.profile.max_seats]
        if len(dealt) < 2:
            return False
        button = next_button(t.button, [s.seat for s in dealt])
        step = start_hand(t.profile, t.stakes, {s.seat: s.stack for s in dealt}, button, deck, hand_id=hand_id)
        forced = {s.seat: 0 for s in dealt}
        for op in step.ops:
            if op.kind in COMMIT_KINDS and op.amount and op.seat is not None:
                forced[op.seat] += op.amount
        ask = [s for s in dealt if s.limits_session is not None and (s.seat, forced[s.seat]) not in approved]
        answers = await t.sessions.answers(
            [t.sessions.allow_hand(s, hand_id, forced[s.seat], None if t.balance_plays else s.stack) for s in ask]
        )
        if any(isinstance(x, BusError) and retryable(x) for x in answers):
            recovery.ping(t, "limits", resumed)
            return False
        refused = [(s, x) for s, x in zip(ask, answers) if isinstance(x, BusError)]
        approved.update(((s.seat, forced[s.seat]), x) for s, x in zip(ask, answers) if not isinstance(x, BusError))
        if not refused:
            break
        for s, refusal in refused:
            players.remove(s)
            if refusal.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
                await seat_sessions.close(t, s, reason="limit")
    allowances = {s.seat: a for s in dealt if (a := approved.get((s.seat, forced[s.seat]))) is not None}
    if allowances:  # the engine bounds each seat's actions by what its wager caps allow (docs/limits.md)
        step = start_hand(
            t.profile, t.stakes, {s.seat: s.stack for s in dealt}, button, deck, hand_id=hand_id, allowances=allowances
        )
    t.button = button
    t.wallet.new_hand()
    t.hand_participants = {s.seat: s.pid for s in dealt}
    t.hand_started_at = now().isoformat()
    try:
        await t.wallet.commit(step, hand_id, t.hand_participants, t.hand_plays())
    except BusError as exc:
        log.warning("forced bets refused, hand cancelled: %s", exc.message)
        t.emit("hand_cancelled", hand_id=hand_id, detail=f"forced bets refused: {exc.code.value}")
        await ending.cancel(t, hand_id, after_hand)
        return False
    t.state = step.state
    if t.time_bank is not None:  # once per hand (idempotent per hand id at the timer)
        pids = [p for p in t.hand_participants.values() if bank_use(t.tid, p, t.time_bank) is not None]
        banks = await t.timers.refill_banks(hand_id, pids, t.time_bank) if pids else None
        t.banks.update(banks or {})
    await accepted(t, step.ops)
    return True


async def resumed(t: Table, service: str) -> None:
    """A service answers again: stacks follow the wallet, lost deadlines are set again, and
    an auto-start table schedules its next hand."""
    if service == "wallet":
        t.needs_reconcile = True
        if not await recovery.reconcile(t):
            recovery.ping(t, "wallet", resumed)
            return
        if not t.hand_running:
            await close_leavers(t)
    if service == "timer":
        st = t.state
        if t.hand_running and st is not None and st.actor_seat is not None and t.deadline is not None:
            left = max(0.05, (t.deadline - now()).total_seconds())
            t.timers.schedule_soon(
                TurnDeadline(table_id=t.tid, hand_id=st.hand_id, turn=st.turn_id, seat=st.actor_seat),
                left,
                bank_use(t.tid, t.hand_participants.get(st.actor_seat), t.time_bank),
            )
        t.next_hand_at = None  # an intermission deadline the timer never got
    await schedule_next_hand(t)


class HandAborted(BusError):
    """The wallet did not answer a step's escrow commit: the hand was cancelled (refunded)."""

    def __init__(self, hand_id: str) -> None:
        super().__init__(
            ErrorCode.UNAVAILABLE,
            "the wallet did not answer: the hand is cancelled and refunded",
            reason="hand_cancelled",
            hand_id=hand_id,
        )


async def step(t: Table, st: Step) -> None:
    """Escrow a step's chips, then keep it (the table's state is untouched on refusal). If the
    wallet does not answer, whether the chips arrived is unknown: the hand is aborted."""
    assert t.state is not None and t.state.hand_id is not None
    try:
        await t.wallet.commit(st, t.state.hand_id, t.hand_participants, t.hand_plays())
    except BusError as exc:
        if retryable(exc):
            hand_id = t.state.hand_id
            await abort(t, exc)
            raise HandAborted(hand_id) from None
        raise
    t.state = st.state
    await accepted(t, st.ops)


async def abort(t: Table, exc: BusError) -> None:
    """Cancel the running hand (a durable cancel: refunded exactly what reached the escrow);
    stacks go back to where the hand started them."""
    st = t.state
    assert st is not None and st.hand_id is not None
    log.warning("hand aborted: %s", exc.message, extra={"table_id": t.tid, "hand_id": st.hand_id})
    t.emit("hand_cancelled", hand_id=st.hand_id, detail=f"escrow unanswered: {exc.code.value}")
    t.events.finished_hand = _record(t, st, "cancelled")
    for i, seat in enumerate(st.seats):
        s = t.seats.get(seat)
        if s is not None and s.pid == t.hand_participants.get(seat):
            s.stack = st.starting_stacks[i]
    t.state = None
    t.deadline = None
    t.end_bank_run()
    await ending.cancel(t, st.hand_id, after_hand)


async def accepted(t: Table, ops: Any) -> None:
    """Announce a kept step, then play the next automatic action (pre-action, leaver) or open the turn."""
    st = t.state
    assert st is not None
    for op in ops:
        if op.kind == "burn":
            continue
        pid = t.hand_participants.get(op.seat) if op.seat is not None else None
        extra: dict[str, Any] = {}
        if op.kind in ("hand_start", "hand_end"):
            extra["stacks"] = (
                {str(s): v for s, v in zip(st.seats, st.stacks)}
                if op.kind == "hand_end"
                else {str(s): v for s, v in zip(st.seats, st.starting_stacks)}
            )
        t.emit(
            op.kind,
            hand_id=st.hand_id,
            seat=op.seat,
            participant_id=pid,
            amount=op.amount,
            to=op.to,
            cards=[card_str(c) for c in op.cards],
            discarded=[card_str(c) for c in op.discarded],
            street=op.street,
            all_in=op.all_in,
            pot=op.pot,
            detail=op.detail,
            **extra,
        )
    if st.phase == "over":
        await finish(t)
        return
    auto = auto_action(st)
    if auto is not None:
        try:
            await step(t, apply(st, auto.seat, auto.action, reason=auto.reason))
            return
        except HandAborted:
            raise
        except (IllegalAction, BusError) as exc:
            log.warning("auto action failed: %s", exc)
            t.state = set_preaction(st, auto.seat, None) if not st.leaving[st.actor or 0] else st
    turn(t)


def turn(t: Table) -> None:
    """Open the actor's turn: its deadline (scheduled in order, not awaited: the deadline is ours
    to state) and a `turn` event with the legal actions."""
    st = t.state
    assert st is not None and st.actor is not None
    seat = st.seats[st.actor]
    pid = t.hand_participants.get(seat)
    t.end_bank_run()
    t.timers.schedule_soon(
        TurnDeadline(table_id=t.tid, hand_id=st.hand_id, turn=st.turn_id, seat=seat),
        t.turn_seconds,
        bank_use(t.tid, pid, t.time_bank),
    )
    t.deadline = now() + timedelta(seconds=t.turn_seconds)
    legal = legal_model(betting.legal_actions_at(st, st.actor))
    info = TurnInfo(
        hand_id=st.hand_id or "",
        turn_id=st.turn_id,
        seat=seat,
        participant_id=pid,
        deadline=t.deadline,
        legal_actions=legal,
        time_bank_seconds=t.bank_of(pid),
    )
    t.emit("turn", hand_id=st.hand_id, seat=seat, participant_id=info.participant_id, turn=info)


async def finish(t: Table) -> None:
    """The hand is over: its settlement (one wallet request) is recorded, published and sent
    until the wallet answers (`felt_table.commands.ending`); a finished hand is never cancelled."""
    st = t.state
    assert st is not None and st.payouts is not None and st.hand_id is not None
    payouts: dict[str, int] = {}
    returns: dict[str, int] = {}
    for op in st.operations:
        if op.kind == "award" and op.amount and op.seat is not None:
            pid = t.hand_participants[op.seat]
            bucket = returns if op.detail in ("uncalled", "refund") else payouts
            bucket[pid] = bucket.get(pid, 0) + op.amount
    t.events.finished_hand = _record(t, st, "settled")
    t.hands_played += 1
    t.deadline = None
    t.end_bank_run()
    for i, seat in enumerate(st.seats):  # stacks after the hand
        s = t.seats.get(seat)
        if s is not None and s.pid == t.hand_participants.get(seat):
            s.stack = st.stacks[i]
    # a buy-in table escrowed nothing during the hand: the settlement carries every dealt seat's wager
    wagers = (
        []
        if t.balance_plays
        else [Wager(account_id=t.hand_participants[s], amount=c) for s, c in zip(st.seats, st.contrib)]
    )
    await ending.end(
        t,
        Settle(
            message_id=f"{st.hand_id}:settle",
            table_id=t.tid,
            hand_id=st.hand_id,
            payouts=[Payout(account_id=a, amount=v) for a, v in payouts.items()],
            returns=[Payout(account_id=a, amount=v) for a, v in returns.items()],
            wagers=wagers,
        ),
        after_hand,
    )


def _record(t: Table, st: HandState, status: str) -> dict[str, Any]:
    """The `table_hands` row of a hand that ended (`status`: settled | cancelled)."""
    assert st.hand_id is not None
    rec = history.record_of(st, t.tid, status, t.hand_participants, t.hand_started_at, now().isoformat())
    return {
        "hand_id": st.hand_id,
        "table_id": t.tid,
        "rules_version": st.rules_version,
        "status": status,
        "ended_at": now(),
        "participants": json.dumps(sorted(t.hand_participants.values())),
        "record": json.dumps(rec),
    }


async def close_leavers(t: Table) -> None:
    """Seats that left during the hand (or while its end was unanswered) are cashed out now;
    if the wallet does not answer they stay `leaving` (never dealt) until it does."""
    for s in [x for x in t.seats.values() if x.leaving]:
        try:
            await seat_sessions.close(t, s, reason=s.leave_reason)
        except BusError as exc:
            if not retryable(exc):
                raise
            recovery.ping(t, "wallet", resumed)
            return


async def after_hand(t: Table) -> None:
    """Stacks follow the wallet if something failed, leavers go, limits may close a session,
    busted stacks leave; then the next hand may be scheduled."""
    if t.needs_reconcile and not await recovery.reconcile(t):
        recovery.ping(t, "wallet", resumed)
    st = t.state
    seats = list(t.seats.values())
    asked = [
        s for s in seats if not s.leaving and t.played(s) and s.limits_session is not None and t.deps.settings.limits
    ]
    if asked:
        assert st is not None and st.hand_id is not None
        hand_id = st.hand_id
        refusals = dict(
            zip(
                (s.seat for s in asked),
                await t.sessions.refusals([t.sessions.allow_continue(hand_id, s) for s in asked]),
            )
        )
    else:
        refusals = {}
    await close_leavers(t)
    for s in list(t.seats.values()):
        if not t.played(s):
            continue
        exc = refusals.get(s.seat)
        if exc is not None and exc.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
            await seat_sessions.close(t, s, reason="limit")
            continue
        if not t.balance_plays and s.stack == 0 and not await seat_sessions.can_rebuy(t, s):
            await seat_sessions.close(t, s, reason="busted")
    # everyone who played is free to go elsewhere once the hand settled
    for pid in t.hand_participants.values():
        if t.seat_of(pid) is None:
            await t.sessions.release(pid)
    await schedule_next_hand(t)
