"""One actor per table: an asyncio task draining one ordered command queue.

Every command (join, ready/start, act, pre-action, leave, timeout, disconnect, reconnect,
sit-out/in, queries) goes through `TableActor.submit`, so nothing about a table ever runs
concurrently. The engine decides every rule; the wallet holds every chip: each engine step
that commits chips is escrowed (`Commit`, transfer id from `hand_id` + a per-hand sequence)
BEFORE the new state is kept and its events go out; a refusal keeps the old state.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import CheckKind, LimitsCheck, LimitsDecision
from felt_contracts.table import (
    Act, Disconnect, GetEvents, GetHand, GetView, HandSeat, HandView, Join, Leave, LegalActions,
    ListHands, ParticipantKind, Admission, Ready, Reconnect, SeatSummary, SetAutoRebuy, SetPreAction, Show, SitIn,
    SitOut, Start, StartMode, TableConfig, TableEvent, TableResult, TableSummary, TableView, TurnInfo, Bounds,
)
from felt_contracts.timer import CancelDeadline, DeadlineCancelled, DeadlineKind, DeadlineScheduled, ScheduleDeadline
from felt_contracts.wallet import (
    Balance, BalanceQuery, BuyIn, BuyInResult, CancelHand, CashOut, CashOutResult, Commit, CommitResult,
    HandOutcome, Payout, Settle, CancelTable, TableCancelled,
)
from felt_engine import betting
from felt_engine.actions import Action
from felt_engine.cards import Deck, card_str, parse_cards
from felt_engine.errors import EngineError, IllegalAction
from felt_engine.hand import Step, apply, leave as engine_leave, next_button, show as engine_show, start_hand
from felt_engine.hand import timeout as engine_timeout
from felt_engine.operations import COMMIT_KINDS, PRIVATE_KINDS
from felt_engine.preactions import auto_action, set_preaction
from felt_engine.profiles import eligible_stack, get_profile
from felt_engine.state import HandState
from felt_engine.views import seat_view
from felt_runtime.bus import BusError, call
from felt_table import history
from felt_table.lobby import stakes_of
from felt_table.settings import TableSettings
from felt_table.store import Store

log = logging.getLogger("felt.table.actor")

ENGINE_CODES = {
    "not_your_turn": ErrorCode.NOT_YOUR_TURN, "hand_over": ErrorCode.HAND_CLOSED,
    "stale_turn": ErrorCode.STALE_TURN, "not_in_hand": ErrorCode.NOT_SEATED,
    "amount_out_of_bounds": ErrorCode.INVALID_AMOUNT, "invalid_amount": ErrorCode.INVALID_AMOUNT,
    "amount_required": ErrorCode.MALFORMED, "amount_not_allowed": ErrorCode.MALFORMED,
}


def now() -> datetime:
    return datetime.now(UTC)


def engine_error(exc: EngineError) -> BusError:
    return BusError(ENGINE_CODES.get(exc.code, ErrorCode.ILLEGAL_ACTION), exc.message, reason=exc.code)


@dataclass
class Seat:
    seat: int
    pid: str
    owner: str
    kind: ParticipantKind
    name: str
    stack: int
    session_id: str | None = None
    ready: bool = False
    sitting_out: bool = False
    connected: bool = True
    leaving: bool = False
    auto_rebuy: bool = False
    grace_epoch: int = 0


@dataclass
class Registry:
    """Process-wide: a participant has at most one active table session."""

    active: dict[str, str]


@dataclass
class Deps:
    broker: Any
    store: Store
    settings: TableSettings
    registry: Registry
    last_seq: int = 0


class TableActor:
    def __init__(self, config: TableConfig, deps: Deps) -> None:
        self.config = config
        self.d = deps
        self.broker = deps.broker
        self.profile = get_profile(config.rules_version)
        self.stakes = stakes_of(config)
        self.balance_plays = self.profile.money == "balance"
        self.turn_seconds = config.turn_seconds or deps.settings.turn_seconds
        self.intermission_seconds = config.intermission_seconds or deps.settings.intermission_seconds
        self.seats: dict[int, Seat] = {}
        self.state: HandState | None = None  # the current (or last finished) hand
        self.hand_participants: dict[int, str] = {}
        self.hand_started_at = ""
        self.commit_seq = 0
        self.button: int | None = None
        self.deadline: datetime | None = None
        self.next_hand_at: datetime | None = None
        self.intermission_epoch = 0
        self.seq = deps.last_seq
        self.outbox: list[dict[str, Any]] = []
        self.finished_hand: dict[str, Any] | None = None
        self.stale_ignored = 0
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.timer_task: asyncio.Task[None] | None = None
        self.timer_jobs: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()

    # ---- queue --------------------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.config.table_id}")
        self.timer_task = asyncio.create_task(self._timers(), name=f"table-{self.config.table_id}-timers")

    async def _timers(self) -> None:
        while True:
            job = await self.timer_jobs.get()
            await self._timer(*job)

    async def stop(self) -> None:
        for task in (self.task, self.timer_task):
            if task:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def submit(self, command: Any) -> TableResult:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((command, fut))
        return await fut

    def submit_nowait(self, command: Any) -> None:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.exception())
        self.queue.put_nowait((command, fut))

    async def _run(self) -> None:
        while True:
            command, fut = await self.queue.get()
            try:
                result = await self._handle(command)
                err = None
            except BusError as exc:
                result, err = None, exc
            except Exception as exc:  # noqa: BLE001
                log.exception("command failed", extra={"table_id": self.config.table_id})
                result, err = None, BusError(ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}")
            try:
                await self._flush()
            except Exception:  # noqa: BLE001
                log.exception("flush failed")
            if not fut.done():
                if err is not None:
                    fut.set_exception(err)
                else:
                    fut.set_result(result)

    async def _handle(self, c: Any) -> TableResult:
        handler = getattr(self, f"_on_{type(c).__name__}")
        return await handler(c)

    def result(self, status: str = "ok", **kw: Any) -> TableResult:
        return TableResult(table_id=self.config.table_id, seq=self.seq, status=status, **kw)

    # ---- helpers --------------------------------------------------------------------------

    @property
    def tid(self) -> str:
        return self.config.table_id

    @property
    def hand_running(self) -> bool:
        return self.state is not None and self.state.phase != "over"

    def seat_of(self, pid: str) -> Seat | None:
        return next((s for s in self.seats.values() if s.pid == pid), None)

    def require_seat(self, pid: str) -> Seat:
        s = self.seat_of(pid)
        if s is None:
            raise BusError(ErrorCode.NOT_SEATED, "not seated at this table", participant_id=pid)
        return s

    def in_hand(self, seat: int) -> bool:
        return self.hand_running and self.state is not None and self.state.index_of(seat) is not None

    async def _call(self, subject: str, request: Any, model: Any) -> Any:
        return await call(self.broker, subject, request, model, timeout=self.d.settings.call_timeout)

    def emit(self, kind: str, *, private_to: str | None = None, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        ev = {"table_id": self.tid, "seq": self.seq, "kind": kind, "at": now().isoformat(),
              "private_to": private_to, **fields}
        self.outbox.append(ev)
        return ev

    async def _flush(self) -> None:
        events, hand = self.outbox, self.finished_hand
        self.outbox, self.finished_hand = [], None
        if not events and hand is None:
            return
        await self.d.store.write(events, hand)
        for ev in events:
            if ev.get("private_to") is None:
                pub = render(ev, None)
                await self.broker.publish(pub.model_dump(mode="json"), subjects.table_public_events(self.tid),
                                          headers={"Nats-Msg-Id": f"{self.tid}:{ev['seq']}"})
            for pid in private_recipients(ev):
                priv = render(ev, pid)
                await self.broker.publish(priv.model_dump(mode="json"), subjects.table_seat_events(self.tid, pid),
                                          headers={"Nats-Msg-Id": f"{self.tid}:{ev['seq']}:{pid}"})

    async def _timer(self, key: str, kind: DeadlineKind, delay: float, payload: dict[str, Any]) -> datetime | None:
        try:
            res = await self._call(subjects.TIMER_SCHEDULE, ScheduleDeadline(
                owner=self.d.settings.timer_owner, key=f"{self.tid}:{key}", kind=kind, delay_seconds=delay,
                payload={"table_id": self.tid, **payload}), DeadlineScheduled)
            return res.due_at
        except BusError as exc:
            log.warning("timer refused/unavailable: %s", exc.message)
            return None

    async def _cancel_timer(self, key: str) -> None:
        try:
            await self._call(subjects.TIMER_CANCEL, CancelDeadline(owner=self.d.settings.timer_owner,
                                                                   key=f"{self.tid}:{key}"), DeadlineCancelled)
        except BusError:
            pass

    async def _limits(self, check: LimitsCheck) -> None:
        """Raise BusError when limits deny (unavailable counts as deny for new risk)."""
        if self.d.settings.limits:
            await self._call(subjects.LIMITS_CHECK, check, LimitsDecision)

    # ---- restart policy -------------------------------------------------------------------

    async def reset(self, attempts: int = 60) -> None:
        """Cancel every open hand of this table in the wallet (refunded exactly once there) and
        cash out every reserve; the seats start empty. Partial hands are never resumed."""
        for n in range(attempts):
            try:
                res = await self._call(subjects.WALLET_CANCEL_TABLE, CancelTable(table_id=self.tid), TableCancelled)
                break
            except BusError as exc:
                if exc.code is not ErrorCode.UNAVAILABLE or n == attempts - 1:
                    raise
                await asyncio.sleep(0.5)
        self.emit("table_reset", amount=len(res.hands), detail=",".join(h.hand_id for h in res.hands))
        await self._flush()

    # ---- lobby ------------------------------------------------------------------------------

    def summary(self) -> TableSummary:
        return TableSummary(config=self.config, players=len(self.seats), hand_running=self.hand_running,
                            hand_id=self.state.hand_id if self.hand_running and self.state else None,
                            last_seq=self.seq)

    async def _on_Join(self, c: Join) -> TableResult:
        adm = self.config.admission
        if (adm is Admission.AGENTS_ONLY and c.kind is not ParticipantKind.AGENT) or (
                adm is Admission.HUMANS_ONLY and c.kind is not ParticipantKind.HUMAN):
            raise BusError(ErrorCode.ADMISSION, f"this table admits {adm.value}", admission=adm.value)
        bal = await self._call(subjects.WALLET_BALANCE, BalanceQuery(account_id=c.participant_id), Balance)
        if bal.in_play > 0:
            raise BusError(ErrorCode.CHIPS_IN_PLAY, "chips committed to an unsettled hand", in_play=bal.in_play)
        if self.seat_of(c.participant_id):
            raise BusError(ErrorCode.ALREADY_SEATED, "already at this table", reason="same_participant")
        if any(s.owner == c.owner_id for s in self.seats.values()):
            raise BusError(ErrorCode.ALREADY_SEATED, "this owner already has a participant at this table",
                           reason="one_per_owner")
        other = self.d.registry.active.get(c.participant_id)
        if other is not None:
            raise BusError(ErrorCode.ALREADY_SEATED, "already in a table session", reason="active_session",
                           table_id=other)
        free = [n for n in range(1, self.config.seats + 1) if n not in self.seats]
        if not free:
            raise BusError(ErrorCode.TABLE_FULL, "no free seat")
        session_id = None
        if self.balance_plays:
            stack = bal.available
        else:
            amount = c.buy_in if c.buy_in is not None else self.config.max_buy_in
            lo, hi = self.config.min_buy_in or 1, self.config.max_buy_in or 0
            if amount is None or not lo <= amount <= hi:
                raise BusError(ErrorCode.INVALID_AMOUNT, f"buy-in must be {lo}..{hi}", min_buy_in=lo, max_buy_in=hi)
            await self._limits(LimitsCheck(kind=CheckKind.BUY_IN, owner_id=c.owner_id, participant_id=c.participant_id,
                                           amount=amount))
            res = await self._call(subjects.WALLET_BUY_IN, BuyIn(
                message_id=f"{self.tid}:{c.participant_id}:join:{uuid.uuid4().hex[:8]}", account_id=c.participant_id,
                table_id=self.tid, amount=amount, min_buy_in=lo, max_buy_in=hi), BuyInResult)
            stack, session_id = res.reserved, res.session_id
        n = free[0]
        s = Seat(n, c.participant_id, c.owner_id, c.kind, c.name, stack, session_id,
                 auto_rebuy=c.auto_rebuy and self.config.auto_rebuy)
        self.seats[n] = s
        self.d.registry.active[c.participant_id] = self.tid
        status = "waiting" if self.hand_running else "seated"
        self.emit(status, seat=n, participant_id=c.participant_id, amount=stack)
        await self._maybe_schedule_auto()
        return self.result(status, seat=n)

    async def _on_Ready(self, c: Ready) -> TableResult:
        s = self.require_seat(c.participant_id)
        s.ready = c.ready
        self.emit("ready", seat=s.seat, participant_id=s.pid, detail="ready" if c.ready else "not_ready")
        return self.result()

    async def _on_SetAutoRebuy(self, c: SetAutoRebuy) -> TableResult:
        s = self.require_seat(c.participant_id)
        if c.enabled and not self.config.auto_rebuy:
            raise BusError(ErrorCode.FORBIDDEN, "this table has no auto-rebuy")
        s.auto_rebuy = c.enabled
        self.emit("auto_rebuy", private_to=s.pid, seat=s.seat, participant_id=s.pid, detail=str(c.enabled).lower())
        return self.result()

    async def _on_SitOut(self, c: SitOut) -> TableResult:
        s = self.require_seat(c.participant_id)
        s.sitting_out, s.ready = True, False
        self.emit("sit_out", seat=s.seat, participant_id=s.pid)
        return self.result()

    async def _on_SitIn(self, c: SitIn) -> TableResult:
        s = self.require_seat(c.participant_id)
        s.sitting_out = False
        self.emit("sit_in", seat=s.seat, participant_id=s.pid)
        await self._maybe_schedule_auto()
        return self.result()

    def eligible(self, *, need_ready: bool) -> list[Seat]:
        out = []
        for s in sorted(self.seats.values(), key=lambda x: x.seat):
            if s.sitting_out or s.leaving or not s.connected:
                continue
            if need_ready and not s.ready:
                continue
            if not eligible_stack(self.profile, self.stakes, s.stack):
                continue
            out.append(s)
        return out

    async def _on_Start(self, c: Start) -> TableResult:
        s = self.require_seat(c.participant_id)
        if self.config.start_mode is not StartMode.EXPLICIT:
            raise BusError(ErrorCode.CONFLICT, "this table starts hands automatically", reason="auto_start")
        if self.hand_running:
            raise BusError(ErrorCode.CONFLICT, "a hand is running", reason="hand_running")
        if s.sitting_out:
            raise BusError(ErrorCode.CONFLICT, "sitting out", reason="sitting_out")
        s.ready = True
        ready = self.eligible(need_ready=True)
        if len(ready) < 2:
            self.emit("ready", seat=s.seat, participant_id=s.pid, detail="ready")
            raise BusError(ErrorCode.CONFLICT, "at least two eligible players must be ready",
                           reason="not_enough_ready", ready=len(ready))
        started = await self._deal(need_ready=True)
        if not started:
            raise BusError(ErrorCode.CONFLICT, "the hand could not start", reason="not_enough_ready")
        return self.result("started", seat=s.seat)

    # ---- dealing -------------------------------------------------------------------------

    async def _maybe_schedule_auto(self) -> None:
        if self.config.start_mode is not StartMode.AUTO or self.hand_running or self.next_hand_at is not None:
            return
        if len(self.eligible(need_ready=False)) < 2:
            return
        self.intermission_epoch += 1
        due = await self._timer("intermission", DeadlineKind.INTERMISSION, self.intermission_seconds,
                                {"k": "intermission", "e": self.intermission_epoch})
        self.next_hand_at = due or now() + timedelta(seconds=self.intermission_seconds)

    async def on_intermission(self, epoch: int) -> None:
        if epoch != self.intermission_epoch or self.next_hand_at is None:
            self.stale_ignored += 1
            return
        self.next_hand_at = None
        if not self.hand_running:
            if not await self._deal(need_ready=False):
                await self._maybe_schedule_auto()

    async def _rebuy(self, s: Seat) -> None:
        hi = self.config.max_buy_in or 0
        if not (s.auto_rebuy and self.config.auto_rebuy) or s.stack >= hi:
            return
        try:
            bal = await self._call(subjects.WALLET_BALANCE, BalanceQuery(account_id=s.pid), Balance)
            amount = min(hi - s.stack, bal.available)
            if amount <= 0:
                return
            res = await self._call(subjects.WALLET_BUY_IN, BuyIn(
                message_id=f"{self.tid}:{s.pid}:rebuy:{uuid.uuid4().hex[:8]}", account_id=s.pid, table_id=self.tid,
                amount=amount, min_buy_in=0, max_buy_in=hi), BuyInResult)
            s.stack, s.session_id = res.reserved, res.session_id
            self.emit("rebuy", seat=s.seat, participant_id=s.pid, amount=amount)
        except BusError as exc:
            log.info("auto-rebuy refused: %s", exc.message)

    async def _deal(self, *, need_ready: bool) -> bool:
        """Start a hand with the eligible players; False if fewer than two can play."""
        for s in list(self.seats.values()):
            await self._rebuy(s)
        if self.balance_plays:  # the account balance plays: read it now
            for s in self.eligible(need_ready=need_ready) + [x for x in self.seats.values() if x.stack < self.stakes.ante]:
                try:
                    s.stack = (await self._call(subjects.WALLET_BALANCE, BalanceQuery(account_id=s.pid), Balance)).available
                except BusError:
                    pass
        players = self.eligible(need_ready=need_ready)
        dealt: list[Seat] = []
        for s in players:
            if s.session_id is not None:
                try:
                    await self._limits(LimitsCheck(kind=CheckKind.START_HAND, owner_id=s.owner, participant_id=s.pid,
                                                   session_id=s.session_id))
                except BusError as exc:
                    if exc.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
                        await self._depart(s, reason="limit")
                    continue
            dealt.append(s)
        dealt = dealt[: self.profile.max_seats]
        if len(dealt) < 2:
            return False
        seats = [s.seat for s in dealt]
        self.button = next_button(self.button, seats)
        hand_id = f"{self.tid}-{uuid.uuid4().hex[:16]}"
        step = start_hand(self.profile, self.stakes, {s.seat: s.stack for s in dealt}, self.button,
                          Deck.shuffled(), hand_id=hand_id)
        self.commit_seq = 0
        self.hand_participants = {s.seat: s.pid for s in dealt}
        self.hand_started_at = now().isoformat()
        try:
            await self._escrow(step, hand_id)
        except BusError as exc:
            log.warning("forced bets refused, hand cancelled: %s", exc.message)
            await self._cancel_hand(hand_id)
            self.emit("hand_cancelled", hand_id=hand_id, detail=f"forced bets refused: {exc.code.value}")
            return False
        self.state = step.state
        await self._accepted(step.ops)
        return True

    async def _escrow(self, step: Step, hand_id: str) -> None:
        """Commit every chip these operations move into the pot, in order, before accepting."""
        for op in step.ops:
            if op.kind in COMMIT_KINDS and op.amount:
                pid = self.hand_participants[op.seat]
                seq = self.commit_seq
                await self._call(subjects.WALLET_COMMIT, Commit(
                    message_id=f"{hand_id}:{seq}", account_id=pid, table_id=self.tid, hand_id=hand_id, seq=seq,
                    amount=op.amount, from_available=self.balance_plays), CommitResult)
                self.commit_seq += 1

    async def _cancel_hand(self, hand_id: str) -> None:
        if self.commit_seq == 0:
            return
        try:
            await self._call(subjects.WALLET_CANCEL_HAND, CancelHand(message_id=f"{hand_id}:cancel", table_id=self.tid,
                                                                     hand_id=hand_id), HandOutcome)
        except BusError as exc:
            if exc.code is not ErrorCode.HAND_CLOSED:
                raise

    # ---- steps ---------------------------------------------------------------------------

    async def _step(self, step: Step) -> None:
        """Escrow a step's chips, then keep it (the caller's state is untouched on refusal)."""
        assert self.state is not None and self.state.hand_id is not None
        await self._escrow(step, self.state.hand_id)
        self.state = step.state
        await self._accepted(step.ops)

    async def _accepted(self, ops: Any) -> None:
        st = self.state
        assert st is not None
        for op in ops:
            if op.kind == "burn":
                continue
            pid = self.hand_participants.get(op.seat) if op.seat is not None else None
            extra: dict[str, Any] = {}
            if op.kind in ("hand_start", "hand_end"):
                extra["stacks"] = {str(s): v for s, v in zip(st.seats, st.stacks)} if op.kind == "hand_end" else \
                    {str(s): v for s, v in zip(st.seats, st.starting_stacks)}
            self.emit(op.kind, hand_id=st.hand_id, seat=op.seat, participant_id=pid, amount=op.amount, to=op.to,
                      cards=[card_str(c) for c in op.cards], discarded=[card_str(c) for c in op.discarded],
                      street=op.street, all_in=op.all_in, pot=op.pot, detail=op.detail,
                      private_card=op.kind in PRIVATE_KINDS, **extra)
        if st.phase == "over":
            await self._finish()
            return
        auto = auto_action(st)
        if auto is not None:
            try:
                step = apply(st, auto.seat, auto.action, reason=auto.reason)
                await self._step(step)
                return
            except (IllegalAction, BusError) as exc:
                log.warning("auto action failed: %s", exc)
                self.state = set_preaction(st, auto.seat, None) if not st.leaving[st.actor or 0] else st
        await self._turn()

    async def _turn(self) -> None:
        st = self.state
        assert st is not None and st.actor_seat is not None
        seat = st.actor_seat
        # scheduled in order by the actor's timer task (not awaited: the deadline is ours to state)
        self.timer_jobs.put_nowait(("turn", DeadlineKind.TURN, self.turn_seconds,
                                    {"k": "turn", "h": st.hand_id, "turn": st.turn_id, "seat": seat}))
        self.deadline = now() + timedelta(seconds=self.turn_seconds)
        legal = legal_model(betting.legal_actions_at(st, st.actor).to_dict())
        info = TurnInfo(hand_id=st.hand_id or "", turn_id=st.turn_id, seat=seat,
                        participant_id=self.hand_participants.get(seat), deadline=self.deadline, legal_actions=legal)
        self.emit("turn", hand_id=st.hand_id, seat=seat, participant_id=info.participant_id,
                  turn=info.model_dump(mode="json"))

    async def _finish(self) -> None:
        st = self.state
        assert st is not None and st.payouts is not None and st.hand_id is not None
        payouts: dict[str, int] = {}
        returns: dict[str, int] = {}
        for op in st.operations:
            if op.kind == "award" and op.amount:
                pid = self.hand_participants[op.seat]
                bucket = returns if op.detail in ("uncalled", "refund") else payouts
                bucket[pid] = bucket.get(pid, 0) + op.amount
        status = "settled"
        try:
            await self._call(subjects.WALLET_SETTLE, Settle(
                message_id=f"{st.hand_id}:settle", table_id=self.tid, hand_id=st.hand_id,
                payouts=[Payout(account_id=a, amount=v) for a, v in payouts.items()],
                returns=[Payout(account_id=a, amount=v) for a, v in returns.items()]), HandOutcome)
        except BusError as exc:
            log.error("settle refused (%s): cancelling the hand", exc.message)
            await self._cancel_hand(st.hand_id)
            status = "cancelled"
            self.emit("hand_cancelled", hand_id=st.hand_id, detail=f"settle refused: {exc.code.value}")
        rec = history.record_of(st, self.tid, status, self.hand_participants, self.hand_started_at, now().isoformat())
        self.finished_hand = {
            "hand_id": st.hand_id, "table_id": self.tid, "rules_version": st.rules_version, "status": status,
            "ended_at": now(), "participants": json.dumps(sorted(self.hand_participants.values())),
            "record": json.dumps(rec),
        }
        self.deadline = None
        # stacks after the hand (a cancelled hand gives everything back)
        for i, seat in enumerate(st.seats):
            s = self.seats.get(seat)
            if s is None or s.pid != self.hand_participants.get(seat):
                continue
            s.stack = st.stacks[i] if status == "settled" else st.starting_stacks[i]
        await self._after_hand()

    async def _after_hand(self) -> None:
        st = self.state
        for s in list(self.seats.values()):
            played = st is not None and st.index_of(s.seat) is not None and self.hand_participants.get(s.seat) == s.pid
            if s.leaving:
                await self._depart(s, reason="left")
                continue
            if not played:
                continue
            if s.session_id is not None and self.d.settings.limits:
                try:
                    await self._call(subjects.LIMITS_CHECK, LimitsCheck(
                        message_id=f"{st.hand_id}:{s.pid}:continue", kind=CheckKind.CONTINUE_SESSION, owner_id=s.owner,
                        participant_id=s.pid, session_id=s.session_id), LimitsDecision)
                except BusError as exc:
                    if exc.code in (ErrorCode.LIMIT_EXCEEDED, ErrorCode.FROZEN):
                        await self._depart(s, reason="limit")
                        continue
            if not self.balance_plays and s.stack == 0 and not s.auto_rebuy:
                await self._depart(s, reason="busted")
        # everyone who played is free to go elsewhere once the hand settled
        for pid in self.hand_participants.values():
            if self.seat_of(pid) is None and self.d.registry.active.get(pid) == self.tid:
                self.d.registry.active.pop(pid, None)
        await self._maybe_schedule_auto()

    async def _depart(self, s: Seat, *, reason: str) -> None:
        """Remove a seat between hands (or one not in the hand) and cash its stack out."""
        amount = 0
        if s.session_id is not None:
            try:
                res = await self._call(subjects.WALLET_CASH_OUT, CashOut(
                    message_id=f"{self.tid}:{s.pid}:out:{uuid.uuid4().hex[:8]}", account_id=s.pid, table_id=self.tid),
                    CashOutResult)
                amount = res.amount
            except BusError as exc:
                if exc.code is not ErrorCode.NOT_FOUND:
                    raise
        self.seats.pop(s.seat, None)
        if self.d.registry.active.get(s.pid) == self.tid:
            self.d.registry.active.pop(s.pid, None)
        await self._cancel_timer(f"grace:{s.pid}")
        self.emit("session_closed" if reason in ("limit", "busted") else "left", seat=s.seat, participant_id=s.pid,
                  amount=amount, detail=reason)

    # ---- play ------------------------------------------------------------------------------

    def _current(self, pid: str, hand_id: str | None = None) -> tuple[Seat, HandState]:
        s = self.require_seat(pid)
        st = self.state
        if st is None or st.phase == "over" or (hand_id is not None and hand_id != st.hand_id):
            raise BusError(ErrorCode.HAND_CLOSED, "that hand is over", hand_id=hand_id)
        if st.index_of(s.seat) is None:
            raise BusError(ErrorCode.NOT_SEATED, "not dealt in this hand (waiting for the next deal)")
        return s, st

    async def _on_Act(self, c: Act) -> TableResult:
        s, st = self._current(c.participant_id, c.hand_id)
        if c.seat is not None and c.seat != s.seat:
            raise BusError(ErrorCode.FORBIDDEN, "you can only act for your own seat", seat=c.seat)
        if c.turn_id is not None and c.turn_id != st.turn_id:
            raise BusError(ErrorCode.STALE_TURN, f"turn {c.turn_id} is over", turn_id=st.turn_id)
        action = self._action(c, st, s.seat)
        try:
            step = apply(st, s.seat, action)
        except IllegalAction as exc:
            raise engine_error(exc) from None
        await self._step(step)
        return self.result(view=self.view(c.participant_id))

    def _action(self, c: Act, st: HandState, seat: int) -> Action:
        kind = c.action
        if kind in ("bet", "raiseTo") and c.amount is None:
            raise BusError(ErrorCode.MALFORMED, f"{kind} needs an amount")
        if kind not in ("bet", "raiseTo") and c.amount is not None:
            raise BusError(ErrorCode.MALFORMED, f"{kind} takes no amount")
        if kind != "draw" and c.cards:
            raise BusError(ErrorCode.MALFORMED, "only draw takes cards")
        add_now = self.profile.amount_convention == "add_now"
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

    async def _on_SetPreAction(self, c: SetPreAction) -> TableResult:
        s, st = self._current(c.participant_id)
        try:
            self.state = set_preaction(st, s.seat, c.preaction)
        except IllegalAction as exc:
            raise engine_error(exc) from None
        self.emit("preaction", private_to=s.pid, hand_id=st.hand_id, seat=s.seat, participant_id=s.pid,
                  detail=c.preaction or "")
        if self.state.actor_seat == s.seat and auto_action(self.state) is not None:
            step = apply(self.state, s.seat, auto_action(self.state).action, reason="preaction")  # type: ignore[union-attr]
            await self._step(step)
        return self.result()

    async def _on_Show(self, c: Show) -> TableResult:
        s = self.require_seat(c.participant_id)
        st = self.state
        if st is None or st.index_of(s.seat) is None or self.hand_participants.get(s.seat) != s.pid:
            raise BusError(ErrorCode.NOT_SEATED, "not in the last hand")
        try:
            step = engine_show(st, s.seat)
        except IllegalAction as exc:
            raise engine_error(exc) from None
        self.state = step.state
        for op in step.ops:
            self.emit("show", hand_id=st.hand_id, seat=s.seat, participant_id=s.pid,
                      cards=[card_str(x) for x in op.cards], detail="voluntary")
        return self.result()

    async def _leave(self, s: Seat, reason: str) -> str:
        if self.in_hand(s.seat) and self.hand_participants.get(s.seat) == s.pid:
            st = self.state
            assert st is not None
            s.leaving = True
            i = st.index_of(s.seat)
            if not st.folded[i]:  # type: ignore[index]
                try:
                    step = engine_leave(st, s.seat)
                except IllegalAction as exc:
                    raise engine_error(exc) from None
                self.emit("leaving", seat=s.seat, participant_id=s.pid, hand_id=st.hand_id, detail=reason)
                await self._step(step)
            else:
                self.emit("leaving", seat=s.seat, participant_id=s.pid, hand_id=st.hand_id, detail=reason)
            return "leaving" if s.seat in self.seats else "left"
        await self._depart(s, reason=reason)
        return "left"

    async def _on_Leave(self, c: Leave) -> TableResult:
        s = self.require_seat(c.participant_id)
        if s.leaving:
            return self.result("leaving", seat=s.seat)
        return self.result(await self._leave(s, "left"), seat=s.seat)

    async def _on_Disconnect(self, c: Disconnect) -> TableResult:
        s = self.require_seat(c.participant_id)
        s.connected = False
        s.grace_epoch += 1
        await self._timer(f"grace:{s.pid}", DeadlineKind.DISCONNECT, self.d.settings.grace_seconds,
                          {"k": "grace", "p": s.pid, "e": s.grace_epoch})
        self.emit("disconnected", seat=s.seat, participant_id=s.pid)
        return self.result()

    async def _on_Reconnect(self, c: Reconnect) -> TableResult:
        s = self.require_seat(c.participant_id)
        if not s.connected:
            s.connected = True
            s.grace_epoch += 1
            await self._cancel_timer(f"grace:{s.pid}")
            self.emit("reconnected", seat=s.seat, participant_id=s.pid)
        return self.result(view=self.view(c.participant_id))

    # ---- timer events (through the same queue) -------------------------------------------

    async def _on_Fired(self, f: "Fired") -> TableResult:
        p = f.payload
        k = p.get("k")
        if k == "turn":
            st = self.state
            if st is None or st.phase == "over" or st.hand_id != p.get("h") or st.turn_id != p.get("turn") \
                    or st.actor_seat != p.get("seat"):
                self.stale_ignored += 1
                return self.result("stale")
            try:
                step = engine_timeout(st, int(p["seat"]), int(p["turn"]))
            except IllegalAction:
                self.stale_ignored += 1
                return self.result("stale")
            await self._step(step)
            return self.result("timeout")
        if k == "grace":
            s = self.seat_of(str(p.get("p")))
            if s is None or s.connected or s.grace_epoch != p.get("e") or s.leaving:
                self.stale_ignored += 1
                return self.result("stale")
            return self.result(await self._leave(s, "disconnected"))
        if k == "intermission":
            await self.on_intermission(int(p.get("e", -1)))
            return self.result()
        return self.result("ignored")

    # ---- queries -------------------------------------------------------------------------

    async def _on_GetView(self, c: GetView) -> TableResult:
        return self.result(view=self.view(c.viewer))

    async def _on_GetEvents(self, c: GetEvents) -> TableResult:
        await self._flush()
        rows = await self.d.store.events(self.tid, c.after_seq, c.limit)
        out = []
        for ev in rows:
            r = render(ev, c.viewer)
            if r is not None:
                out.append(r)
        return self.result(events=tuple(out))

    async def _on_GetHand(self, c: GetHand) -> TableResult:
        await self._flush()
        row = await self.d.store.hand(self.tid, c.hand_id)
        if row is None:
            raise BusError(ErrorCode.NOT_FOUND, "no such finished hand at this table", hand_id=c.hand_id)
        return self.result(hand=history.history(json.loads(row["record"]), c.viewer, c.format))

    async def _on_ListHands(self, c: ListHands) -> TableResult:
        await self._flush()
        rows = await self.d.store.hands(self.tid, c.participant_id, c.limit)
        return self.result(hands=tuple(history.summary(json.loads(r["record"])) for r in rows))

    def view(self, viewer: str | None) -> TableView:
        me = self.seat_of(viewer) if viewer else None
        seats = []
        for s in sorted(self.seats.values(), key=lambda x: x.seat):
            status = "leaving" if s.leaving else "sitting_out" if s.sitting_out else (
                "playing" if self.in_hand(s.seat) and self.hand_participants.get(s.seat) == s.pid else "waiting")
            seats.append(SeatSummary(seat=s.seat, participant_id=s.pid, kind=s.kind, name=s.name, stack=s.stack,
                                     status=status, ready=s.ready, connected=s.connected))
        hand = None
        st = self.state
        if st is not None:
            my_seat = me.seat if me is not None and self.hand_participants.get(me.seat) == me.pid else None
            v = seat_view(st, my_seat) if my_seat is not None and st.index_of(my_seat) is not None else seat_view(st, -1)
            hand = HandView(
                hand_id=v["handId"], rules_version=v["rulesVersion"], structure=v["structure"], street=v["street"],
                phase=v["phase"], button=v["button"], small_blind_seat=v["smallBlind"], big_blind_seat=v["bigBlind"],
                board=tuple(v["board"]), pot=v["pot"], to_match=v["toMatch"], actor_seat_id=v["actorSeatId"],
                turn_id=v["turnId"], deadline=self.deadline if st.phase != "over" else None,
                seats=tuple(HandSeat(seat=x["seat"], participant_id=self.hand_participants.get(x["seat"]),
                                     stack=x["stack"], bet=x["bet"], committed=x["committed"], folded=x["folded"],
                                     all_in=x["allIn"], card_count=x["cardCount"],
                                     cards=tuple(x["cards"]) if x["cards"] is not None else None, shown=x["shown"],
                                     leaving=x["leaving"], payout=x["payout"]) for x in v["seats"]),
                hole_cards=tuple(v["holeCards"]) if v.get("holeCards") is not None else None,
                legal_actions=legal_model(v["legalActions"]) if v.get("legalActions") else None,
                preaction=v.get("preaction"), showdown=v["showdown"])
        return TableView(table_id=self.tid, rules_version=self.config.rules_version, config=self.config, seq=self.seq,
                         your_seat_id=me.seat if me else None, seats=tuple(seats), hand=hand,
                         next_hand_at=self.next_hand_at)


@dataclass(frozen=True)
class Fired:
    """A timer deadline delivered to the table (internal: enters the same queue)."""

    payload: dict[str, Any]


def legal_model(d: dict[str, Any]) -> LegalActions:
    def b(x: Any) -> Bounds | None:
        return Bounds(min=x["min"], max=x["max"]) if x else None

    return LegalActions(fold=d["fold"], check=d["check"], call=d["call"], bet=b(d["bet"]), raise_to=b(d["raiseTo"]),
                        all_in=d["allIn"], draw=b(d.get("draw")))


def private_recipients(ev: dict[str, Any]) -> list[str]:
    if ev.get("private_to"):
        return [ev["private_to"]]
    if (ev.get("private_card") or ev["kind"] == "turn") and ev.get("participant_id"):
        return [ev["participant_id"]]
    return []


FIELDS = set(TableEvent.model_fields)


def render(ev: dict[str, Any], viewer: str | None) -> TableEvent | None:
    """The event as `viewer` may see it (None: public). Private-only events of others: None."""
    if ev.get("private_to") and ev["private_to"] != viewer:
        return None
    own = viewer is not None and ev.get("participant_id") == viewer
    d = {k: v for k, v in ev.items() if k in FIELDS}
    d["event_id"] = f"{ev['table_id']}:{ev['seq']}" + (f":{viewer}" if own else "")
    d["private"] = bool(ev.get("private_to")) or (own and (bool(ev.get("private_card")) or ev["kind"] == "turn"))
    if ev.get("private_card") and not own:
        d["amount"] = len(ev.get("cards") or []) if ev["kind"] == "deal_hole" else ev.get("amount", 0)
        d["cards"], d["discarded"] = (), ()
    for k in ("cards", "discarded"):
        if k in d and d[k] is not None:
            d[k] = tuple(d[k])
    return TableEvent(**{k: v for k, v in d.items() if v is not None or k in ("seat",)})
