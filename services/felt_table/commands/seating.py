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
from felt_table.commands import closing, ending, hands, seat_sessions
from felt_table.commands.recovery import paused
from felt_table.ports.registry import Claims
from felt_table.model.table import Handler, Seat, Table, engine_error
from felt_table.commands.views import view


async def reset(t: Table, held: Claims | None = None) -> None:
    """Restart policy: first send the wallet every hand end it has not answered (completed
    payouts remain paid), then cancel every open hand of this table (refunded exactly once) and
    cash out every reserve; the seats start empty. Partial hands are never resumed. Waits for
    the wallet. `held`: the table's session claims when the caller read them (registry.claims)."""
    await ending.replay(t)
    res = await t.wallet.cancel_table(f"{t.tid}:reset:{t.events.seq}", t.backoff)
    t.emit("table_reset", amount=len(res.hands), detail=",".join(h.hand_id for h in res.hands))
    await t.events.flush()
    await t.deps.registry.release_table(t.tid, held)  # the seats are empty: so are their sessions


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


async def join(t: Table, c: Join) -> TableResult:
    closing.refuse_if_closing(t)
    adm = t.config.admission
    if (adm is Admission.AGENTS_ONLY and c.kind is not ParticipantKind.AGENT) or (
        adm is Admission.HUMANS_ONLY and c.kind is not ParticipantKind.HUMAN
    ):
        raise BusError(ErrorCode.ADMISSION, f"this table admits {adm.value}", admission=adm.value)
    bal = await t.wallet.balance(c.participant_id)
    if bal.in_play > 0:
        raise BusError(ErrorCode.CHIPS_IN_PLAY, "chips committed to an unsettled hand", in_play=bal.in_play)
    if t.seat_of(c.participant_id):
        raise BusError(ErrorCode.ALREADY_SEATED, "already at this table", reason="same_participant")
    if any(s.owner == c.owner_id for s in t.seats.values()):
        raise BusError(
            ErrorCode.ALREADY_SEATED, "this owner already has a participant at this table", reason="one_per_owner"
        )
    free = [n for n in range(1, t.config.seats + 1) if n not in t.seats]
    if not free:
        raise BusError(ErrorCode.TABLE_FULL, "no free seat")
    other = await t.sessions.claim(c.participant_id)  # before any chips move; released if the join fails
    if other is not None:
        raise BusError(ErrorCode.ALREADY_SEATED, "already in a table session", reason="active_session", table_id=other)
    try:
        return await _seat(t, c, bal, free[0])
    except BaseException:
        if t.seat_of(c.participant_id) is None:
            await t.sessions.release(c.participant_id)
        raise


async def _seat(t: Table, c: Join, bal: Any, n: int) -> TableResult:
    session_id = amount = None
    if t.balance_plays:
        stack = bal.available
    else:
        lo, hi = t.config.min_buy_in or 1, t.config.max_buy_in or 0
        amount = c.buy_in if c.buy_in is not None else default_buy_in(lo, hi, bal.available)
        if not lo <= amount <= hi:
            raise BusError(ErrorCode.INVALID_AMOUNT, f"buy-in must be {lo}..{hi}", min_buy_in=lo, max_buy_in=hi)
        key = f"join:{t.command_id}"  # a resent join (same message id) buys in once
        await t.sessions.allow_buy_in(c.owner_id, c.participant_id, amount, key, c.credential_id)
        res = await t.wallet.buy_in(c.participant_id, amount, lo, hi, key)
        stack, session_id = res.reserved, res.session_id
    t.seats[n] = Seat(
        n,
        c.participant_id,
        c.owner_id,
        c.kind,
        c.name,
        stack,
        session_id,
        auto_rebuy=c.auto_rebuy and t.config.auto_rebuy,
        play_id=uuid.uuid4().hex if t.balance_plays else None,
        credential=c.credential_id,
    )
    status: EventKind = "waiting" if t.hand_running else "seated"
    t.emit(status, seat=n, participant_id=c.participant_id, amount=stack)
    await hands.schedule_next_hand(t)
    return t.result(status, seat=n, buy_in=amount)


async def ready(t: Table, c: Ready) -> TableResult:
    s = t.require_seat(c.participant_id)
    s.ready = c.ready
    t.emit("ready", seat=s.seat, participant_id=s.pid, detail="ready" if c.ready else "not_ready")
    return t.result()


async def set_auto_rebuy(t: Table, c: SetAutoRebuy) -> TableResult:
    s = t.require_seat(c.participant_id)
    if c.enabled and not t.config.auto_rebuy:
        raise BusError(ErrorCode.FORBIDDEN, "this table does not allow auto-rebuy", reason="auto_rebuy_not_allowed")
    s.auto_rebuy = c.enabled
    t.emit("auto_rebuy", private_to=s.pid, seat=s.seat, participant_id=s.pid, detail=str(c.enabled).lower())
    return t.result()


async def sit_out(t: Table, c: SitOut) -> TableResult:
    s = t.require_seat(c.participant_id)
    if not s.sitting_out:
        await sit_out_seat(t, s, "")
    return t.result()


async def sit_out_seat(t: Table, s: Seat, reason: str) -> None:
    """Not dealt in from the next hand; after `sit_out_leave_seconds` sat out the seat leaves
    (and is cashed out). `reason`: "" (their choice) or `timeouts` (absent)."""
    s.sitting_out, s.ready = True, False
    s.sit_out_epoch += 1
    await t.timers.schedule(
        AbsentDeadline(table_id=t.tid, participant_id=s.pid, epoch=s.sit_out_epoch),
        t.deps.settings.sit_out_leave_seconds,
    )
    t.emit("sit_out", seat=s.seat, participant_id=s.pid, detail=reason)


async def timed_out(t: Table, seat: int, pid: str | None) -> None:
    """A turn of this seat timed out: `absent_timeouts` in a row sit it out."""
    s = t.seats.get(seat)
    if s is None or s.pid != pid:
        return
    s.timeouts += 1
    if s.timeouts >= t.deps.settings.absent_timeouts and not s.sitting_out and not s.leaving:
        await sit_out_seat(t, s, "timeouts")


async def sit_in(t: Table, c: SitIn) -> TableResult:
    s = t.require_seat(c.participant_id)
    s.sitting_out, s.timeouts = False, 0
    s.sit_out_epoch += 1
    await t.timers.cancel(f"absent:{s.pid}")
    t.emit("sit_in", seat=s.seat, participant_id=s.pid)
    await hands.schedule_next_hand(t)
    return t.result()


async def absent_over(t: Table, d: AbsentDeadline) -> TableResult:
    """Sat out for `sit_out_leave_seconds`: the seat leaves (cashed out) unless it sat in again."""
    s = t.seat_of(d.participant_id)
    if s is None or not s.sitting_out or s.sit_out_epoch != d.epoch or s.leaving:
        t.stale_ignored += 1
        return t.result("stale")
    return t.result(await _leave(t, s, "absent"))


async def start(t: Table, c: Start) -> TableResult:
    """Explicit tables: a seated player starts the hand once two eligible players are ready."""
    s = t.require_seat(c.participant_id)
    if t.config.start_mode is not StartMode.EXPLICIT:
        raise BusError(ErrorCode.CONFLICT, "this table starts hands automatically", reason="auto_start")
    closing.refuse_if_closing(t)
    if s.sitting_out:
        raise BusError(ErrorCode.CONFLICT, "sitting out", reason="sitting_out")
    if t.hand_running:
        # a click that lands while a hand runs (at a busy table the pause between hands is short)
        # is not lost: the seat is ready, and dealt in from the next hand
        if not s.ready:
            s.ready = True
            t.emit("ready", seat=s.seat, participant_id=s.pid, detail="ready")
        return t.result("ready", seat=s.seat)
    if not t.can_deal:
        raise_paused(t)
    s.ready = True
    ready_now = t.eligible(need_ready=True)
    if len(ready_now) < 2:
        t.emit("ready", seat=s.seat, participant_id=s.pid, detail="ready")
        raise BusError(
            ErrorCode.CONFLICT,
            "at least two eligible players must be ready",
            reason="not_enough_ready",
            ready=len(ready_now),
        )
    if not await hands.deal(t, need_ready=True):
        if not t.can_deal:
            raise_paused(t)
        raise BusError(ErrorCode.CONFLICT, "the hand could not start", reason="not_enough_ready")
    return t.result("started", seat=s.seat)


def raise_paused(t: Table) -> None:
    raise BusError(ErrorCode.UNAVAILABLE, f"the table is {paused(t) or 'settling the last hand'}", reason="paused")


async def _leave(t: Table, s: Seat, reason: str) -> str:
    """Mid-hand the engine's leave policy applies and the cash-out follows settlement; otherwise at once."""
    if t.in_hand(s.seat) and t.hand_participants.get(s.seat) == s.pid:
        st = t.state
        i = st.index_of(s.seat) if st is not None else None
        assert st is not None and i is not None  # in the hand: dealt in
        s.leaving, s.leave_reason = True, reason
        if not st.folded[i]:
            try:
                nxt = engine_leave(st, s.seat)
            except IllegalAction as exc:
                raise engine_error(exc) from None
            t.emit("leaving", seat=s.seat, participant_id=s.pid, hand_id=st.hand_id, detail=reason)
            await hands.step(t, nxt)
        else:
            t.emit("leaving", seat=s.seat, participant_id=s.pid, hand_id=st.hand_id, detail=reason)
        if t.balance_plays and t.seats.get(s.seat) is s:  # ante-nl-1: folded now, no reserve: gone now
            await seat_sessions.close(t, s, reason=reason)
        return "leaving" if t.seats.get(s.seat) is s else "left"
    if t.ending is not None:  # the last hand's end is unanswered: the cash-out follows it
        s.leaving, s.leave_reason = True, reason
        t.emit("leaving", seat=s.seat, participant_id=s.pid, detail=reason)
        return "leaving"
    await seat_sessions.close(t, s, reason=reason)
    return "left"


async def leave(t: Table, c: Leave) -> TableResult:
    s = t.require_seat(c.participant_id)
    if s.leaving:
        return t.result("leaving", seat=s.seat)
    return t.result(await _leave(t, s, "left"), seat=s.seat)


async def disconnect(t: Table, c: Disconnect) -> TableResult:
    s = t.require_seat(c.participant_id)
    s.connected = False
    s.grace_epoch += 1
    await t.timers.schedule(
        GraceDeadline(table_id=t.tid, participant_id=s.pid, epoch=s.grace_epoch), t.deps.settings.grace_seconds
    )
    t.emit("disconnected", seat=s.seat, participant_id=s.pid)
    return t.result()


async def reconnect(t: Table, c: Reconnect) -> TableResult:
    s = t.require_seat(c.participant_id)
    if not s.connected:
        s.connected = True
        s.grace_epoch += 1
        await t.timers.cancel(f"grace:{s.pid}")
        t.emit("reconnected", seat=s.seat, participant_id=s.pid)
    return t.result(view=view(t, c.participant_id))


async def grace_over(t: Table, d: GraceDeadline) -> TableResult:
    """Disconnect grace expired: the player leaves (folding if in a hand) unless they came back."""
    s = t.seat_of(d.participant_id)
    if s is None or s.connected or s.grace_epoch != d.epoch or s.leaving:
        t.stale_ignored += 1
        return t.result("stale")
    return t.result(await _leave(t, s, "disconnected"))


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
