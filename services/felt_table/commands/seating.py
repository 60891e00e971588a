"""Seating and lobby rules: admission, one participant per owner, buy-in (limits, then the
wallet), ready/start, sit-out, leaving by the profile's policy, disconnect grace, and the
restart policy that starts a table with empty seats."""

from __future__ import annotations

import uuid
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.names import EventKind
from felt_contracts.table import (
    Admission,
    Disconnect,
    Join,
    Leave,
    ParticipantKind,
    Ready,
    Reconnect,
    SetAutoRebuy,
    SitIn,
    SitOut,
    Start,
    StartMode,
    TableResult,
)
from felt_contracts.deadlines import AbsentDeadline, GraceDeadline
from felt_engine.errors import IllegalAction
from felt_engine.hand import leave as engine_leave
from felt_runtime.bus import BusError
from felt_table.commands import closing, ending, hands, requests, seat_sessions
from felt_table.model import hosting
from felt_table.commands.recovery import paused
from felt_table.ports.registry import Claims
from felt_table.model.table import Handler, Seat, Table, engine_error
from felt_table.commands.views import view


async def reset(table: Table, held: Claims | None = None) -> None:
    """Restart policy: first send the wallet every hand end it has not answered (completed
    payouts remain paid), then cancel every open hand of this table (refunded exactly once) and
    cash out every reserve; the seats start empty. Partial hands are never resumed. Waits for
    the wallet. `held`: the table's session claims when the caller read them (registry.claims)."""
    await ending.replay(table)
    res = await table.wallet.cancel_table(f"{table.tid}:reset:{table.events.seq}", table.backoff)
    table.emit("table_reset", amount=len(res.hands), detail=",".join(ended.hand_id for ended in res.hands))
    await table.events.flush()
    await table.deps.registry.release_table(table.tid, held)  # the seats are empty: so are their sessions


def default_buy_in(lo: int, hi: int, available: int) -> int:
    """A join without `buy_in`: the largest amount in the table's range the balance covers."""
    if available < lo:
        raise BusError(
            ErrorCode.INSUFFICIENT_FUNDS,
            f"the minimum buy-in here is {lo}; {available} available",
            minBuyIn=lo,
            available=available,
        )
    return min(hi, available)


async def join(table: Table, command: Join) -> TableResult:
    closing.refuse_if_closing(table)
    hosting.admit(table, command)
    if (
        table.config.approval
        and not hosting.is_host(table, command.participant_id)
        and not hosting.by_pass(table, command)
        and not table.seat_of(command.participant_id)
    ):
        return await requests.ask(table, command)
    result = await take_seat(table, command)
    await hosting.seated(table, command)
    return result


async def take_seat(table: Table, command: Join) -> TableResult:
    """Seat a participant (a join, or a request the host approved): admission, one per owner, the buy-in."""
    closing.refuse_if_closing(table)
    adm = table.config.admission
    if (adm is Admission.AGENTS_ONLY and command.kind is not ParticipantKind.AGENT) or (
        adm is Admission.HUMANS_ONLY and command.kind is not ParticipantKind.HUMAN
    ):
        raise BusError(ErrorCode.ADMISSION, f"this table admits {adm.value}", admission=adm.value)
    match = table.config.match
    if match is not None and command.participant_id not in (match.participant_id, match.opponent_id):
        raise BusError(ErrorCode.ADMISSION, "a match table seats its two players only", admission="match")
    bal = await table.wallet.balance(command.participant_id)
    if bal.in_play > 0:
        raise BusError(ErrorCode.CHIPS_IN_PLAY, "chips committed to an unsettled hand", in_play=bal.in_play)
    if table.seat_of(command.participant_id):
        raise BusError(ErrorCode.ALREADY_SEATED, "already at this table", reason="same_participant")
    if any(seat.owner == command.owner_id for seat in table.seats.values()):
        raise BusError(
            ErrorCode.ALREADY_SEATED, "this owner already has a participant at this table", reason="one_per_owner"
        )
    free = [number for number in range(1, table.config.seats + 1) if number not in table.seats]
    if not free or (command.seat is not None and command.seat not in free):
        raise BusError(ErrorCode.TABLE_FULL, "no free seat" if not free else "this seat is taken", field="seat")
    other = await table.sessions.claim(command.participant_id)  # before any chips move; released if the join fails
    if other is not None:
        raise BusError(ErrorCode.ALREADY_SEATED, "already in a table session", reason="active_session", table_id=other)
    try:
        return await _seat(table, command, bal, command.seat or free[0])
    except BaseException:
        if table.seat_of(command.participant_id) is None:
            await table.sessions.release(command.participant_id)
        raise


async def _seat(table: Table, command: Join, bal: Any, number: int) -> TableResult:
    session_id = amount = None
    if table.balance_plays:
        stack = bal.available
    else:
        # a tournament's stack is whatever chips the player holds (a short stack moving tables)
        lo = 1 if table.tournament else table.config.min_buy_in or 1
        hi = table.config.max_buy_in or 0
        amount = command.buy_in if command.buy_in is not None else default_buy_in(lo, hi, bal.available)
        if not lo <= amount <= hi:
            raise BusError(ErrorCode.INVALID_AMOUNT, f"buy-in must be {lo}..{hi}", min_buy_in=lo, max_buy_in=hi)
        key = f"join:{table.command_id}"  # a resent join (same message id) buys in once
        await table.sessions.allow_buy_in(command.owner_id, command.participant_id, amount, key, command.credential_id)
        res = await table.wallet.buy_in(command.participant_id, amount, lo, hi, key)
        stack, session_id = res.reserved, res.session_id
    table.seats[number] = Seat(
        number,
        command.participant_id,
        command.owner_id,
        command.kind,
        command.name,
        stack,
        session_id,
        auto_rebuy=command.auto_rebuy and table.config.auto_rebuy,
        play_id=uuid.uuid4().hex if table.balance_plays else None,
        credential=command.credential_id,
    )
    status: EventKind = "waiting" if table.hand_running else "seated"
    table.emit(status, seat=number, participant_id=command.participant_id, amount=stack)
    await hands.schedule_next_hand(table)
    return table.result(status, seat=number, buy_in=amount)


async def ready(table: Table, command: Ready) -> TableResult:
    seat = table.require_seat(command.participant_id)
    seat.ready = command.ready
    table.emit("ready", seat=seat.number, participant_id=seat.pid, detail="ready" if command.ready else "not_ready")
    return table.result()


async def set_auto_rebuy(table: Table, command: SetAutoRebuy) -> TableResult:
    seat = table.require_seat(command.participant_id)
    if command.enabled and not table.config.auto_rebuy:
        raise BusError(ErrorCode.FORBIDDEN, "this table does not allow auto-rebuy", reason="auto_rebuy_not_allowed")
    seat.auto_rebuy = command.enabled
    table.emit(
        "auto_rebuy",
        private_to=seat.pid,
        seat=seat.number,
        participant_id=seat.pid,
        detail=str(command.enabled).lower(),
    )
    return table.result()


async def sit_out(table: Table, command: SitOut) -> TableResult:
    seat = table.require_seat(command.participant_id)
    if not seat.sitting_out:
        await sit_out_seat(table, seat, "")
    return table.result()


async def sit_out_seat(table: Table, seat: Seat, reason: str) -> None:
    """Not dealt in from the next hand; after `sit_out_leave_seconds` sat out the seat leaves
    (and is cashed out). `reason`: "" (their choice) or `timeouts` (absent)."""
    seat.sitting_out, seat.ready = True, False
    seat.sit_out_epoch += 1
    if not table.tournament:  # a tournament's absent player stays, blinded out
        await table.timers.schedule(
            AbsentDeadline(table_id=table.tid, participant_id=seat.pid, epoch=seat.sit_out_epoch),
            table.deps.settings.sit_out_leave_seconds,
        )
    table.emit("sit_out", seat=seat.number, participant_id=seat.pid, detail=reason)


async def timed_out(table: Table, number: int, pid: str | None) -> None:
    """A turn of seat `number` timed out: `absent_timeouts` in a row sit it out."""
    seat = table.seats.get(number)
    if seat is None or seat.pid != pid:
        return
    seat.timeouts += 1
    if seat.timeouts >= table.deps.settings.absent_timeouts and not seat.sitting_out and not seat.leaving:
        await sit_out_seat(table, seat, "timeouts")


async def sit_in(table: Table, command: SitIn) -> TableResult:
    seat = table.require_seat(command.participant_id)
    seat.sitting_out, seat.timeouts = False, 0
    seat.sit_out_epoch += 1
    await table.timers.cancel(f"absent:{seat.pid}")
    table.emit("sit_in", seat=seat.number, participant_id=seat.pid)
    await hands.schedule_next_hand(table)
    return table.result()


async def absent_over(table: Table, deadline: AbsentDeadline) -> TableResult:
    """Sat out for `sit_out_leave_seconds`: the seat leaves (cashed out) unless it sat in again."""
    seat = table.seat_of(deadline.participant_id)
    if seat is None or not seat.sitting_out or seat.sit_out_epoch != deadline.epoch or seat.leaving:
        table.stale_ignored += 1
        return table.result("stale")
    return table.result(await leave_seat(table, seat, "absent"))


async def start(table: Table, command: Start) -> TableResult:
    """Explicit tables: a seated player starts the hand once two eligible players are ready."""
    seat = table.require_seat(command.participant_id)
    if table.config.start_mode is not StartMode.EXPLICIT:
        raise BusError(ErrorCode.CONFLICT, "this table starts hands automatically", reason="auto_start")
    closing.refuse_if_closing(table)
    if seat.sitting_out:
        raise BusError(ErrorCode.CONFLICT, "sitting out", reason="sitting_out")
    if table.hand_running:
        # a click that lands while a hand runs (at a busy table the pause between hands is short)
        # is not lost: the seat is ready, and dealt in from the next hand
        if not seat.ready:
            seat.ready = True
            table.emit("ready", seat=seat.number, participant_id=seat.pid, detail="ready")
        return table.result("ready", seat=seat.number)
    if not table.can_deal:
        raise_paused(table)
    seat.ready = True
    ready_now = table.eligible(need_ready=True)
    if len(ready_now) < 2:
        table.emit("ready", seat=seat.number, participant_id=seat.pid, detail="ready")
        raise BusError(
            ErrorCode.CONFLICT,
            "at least two eligible players must be ready",
            reason="not_enough_ready",
            ready=len(ready_now),
        )
    if not await hands.deal(table, need_ready=True):
        if not table.can_deal:
            raise_paused(table)
        raise BusError(ErrorCode.CONFLICT, "the hand could not start", reason="not_enough_ready")
    return table.result("started", seat=seat.number)


def raise_paused(table: Table) -> None:
    raise BusError(ErrorCode.UNAVAILABLE, f"the table is {paused(table) or 'settling the last hand'}", reason="paused")


async def leave_seat(table: Table, seat: Seat, reason: str) -> str:
    """Mid-hand the engine's leave policy applies and the cash-out follows settlement; otherwise at once."""
    if table.in_hand(seat.number) and table.hand_participants.get(seat.number) == seat.pid:
        hand = table.state
        i = hand.index_of(seat.number) if hand is not None else None
        assert hand is not None and i is not None  # in the hand: dealt in
        seat.leaving, seat.leave_reason = True, reason
        if not hand.folded[i]:
            try:
                nxt = engine_leave(hand, seat.number)
            except IllegalAction as exc:
                raise engine_error(exc) from None
            table.emit("leaving", seat=seat.number, participant_id=seat.pid, hand_id=hand.hand_id, detail=reason)
            await hands.step(table, nxt)
        else:
            table.emit("leaving", seat=seat.number, participant_id=seat.pid, hand_id=hand.hand_id, detail=reason)
        if table.balance_plays and table.seats.get(seat.number) is seat:  # ante-nl-1: folded now, no reserve: gone now
            await seat_sessions.close(table, seat, reason=reason)
        return "leaving" if table.seats.get(seat.number) is seat else "left"
    if table.ending is not None:  # the last hand's end is unanswered: the cash-out follows it
        seat.leaving, seat.leave_reason = True, reason
        table.emit("leaving", seat=seat.number, participant_id=seat.pid, detail=reason)
        return "leaving"
    await seat_sessions.close(table, seat, reason=reason)
    return "left"


async def leave(table: Table, command: Leave) -> TableResult:
    seat = table.require_seat(command.participant_id)
    if seat.leaving:
        return table.result("leaving", seat=seat.number)
    if table.tournament:  # the chips stay in play: the player sits out, blinded out
        if not seat.sitting_out:
            await sit_out_seat(table, seat, "left")
        return table.result("sit_out", seat=seat.number)
    return table.result(await leave_seat(table, seat, "left"), seat=seat.number)


async def disconnect(table: Table, command: Disconnect) -> TableResult:
    seat = table.require_seat(command.participant_id)
    seat.connected = False
    seat.grace_epoch += 1
    await table.timers.schedule(
        GraceDeadline(table_id=table.tid, participant_id=seat.pid, epoch=seat.grace_epoch),
        table.deps.settings.grace_seconds,
    )
    table.emit("disconnected", seat=seat.number, participant_id=seat.pid)
    return table.result()


async def reconnect(table: Table, command: Reconnect) -> TableResult:
    seat = table.require_seat(command.participant_id)
    if not seat.connected:
        seat.connected = True
        seat.grace_epoch += 1
        await table.timers.cancel(f"grace:{seat.pid}")
        table.emit("reconnected", seat=seat.number, participant_id=seat.pid)
    return table.result(view=view(table, command.participant_id))


async def grace_over(table: Table, deadline: GraceDeadline) -> TableResult:
    """Disconnect grace expired: the player leaves (folding if in a hand) unless they came back."""
    seat = table.seat_of(deadline.participant_id)
    if seat is None or seat.connected or seat.grace_epoch != deadline.epoch or seat.leaving:
        table.stale_ignored += 1
        return table.result("stale")
    if table.tournament:  # stays disconnected: dealt in and folded until they come back
        return table.result()
    return table.result(await leave_seat(table, seat, "disconnected"))


COMMANDS: dict[type, Handler] = {
    Join: join,
    Ready: ready,
    SetAutoRebuy: set_auto_rebuy,
    SitOut: sit_out,
    SitIn: sit_in,
    Start: start,
    Leave: leave,
    Disconnect: disconnect,
    Reconnect: reconnect,
}
