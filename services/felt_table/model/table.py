"""One table's state (seats, the current hand, the button) and the rules read straight off it.

The command modules (seating, play, hands, views) work on this object; only the actor's queue
touches it, so nothing here needs a lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from felt_contracts.errors import ErrorCode
from felt_contracts.names import EventKind
from felt_contracts.table import ParticipantKind, TableConfig, TableResult
from felt_contracts.timer import TimeBankPolicy
from felt_engine.errors import EngineError
from felt_engine.profiles import eligible_stack, get_profile
from felt_engine.state import HandState
from felt_runtime.bus import BusError
from felt_table.ports.deadlines import Deadlines
from felt_table.ports.deps import Deps
from felt_table.ports.escrow import Escrow, HandEnd
from felt_table.ports.events import Events
from felt_table.model.host_state import Hosting
from felt_table.model.lobby import stakes_of
from felt_client.backoff import Backoff
from felt_table.ports.sessions import Sessions
from felt_table.model.duplicate import Duplicate

ENGINE_CODES = {
    "not_your_turn": ErrorCode.NOT_YOUR_TURN,
    "hand_over": ErrorCode.HAND_CLOSED,
    "stale_turn": ErrorCode.STALE_TURN,
    "not_in_hand": ErrorCode.NOT_SEATED,
    "amount_out_of_bounds": ErrorCode.INVALID_AMOUNT,
    "invalid_amount": ErrorCode.INVALID_AMOUNT,
    "amount_required": ErrorCode.MALFORMED,
    "amount_not_allowed": ErrorCode.MALFORMED,
    "over_allowance": ErrorCode.LIMIT_EXCEEDED,  # past the hand's allowance: a wager cap (docs/limits.md)
}


def now() -> datetime:
    return datetime.now(UTC)


def engine_error(exc: EngineError) -> BusError:
    """The engine's refusal as a stable bus code (the engine's own code kept as `reason`)."""
    return BusError(ENGINE_CODES.get(exc.code, ErrorCode.ILLEGAL_ACTION), exc.message, reason=exc.code)


@dataclass
class Seat:
    number: int
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
    leave_reason: str = "left"  # said in the `left` event when a deferred leave is cashed out
    auto_rebuy: bool = False
    grace_epoch: int = 0
    timeouts: int = 0  # turns timed out in a row (an action of their own resets it)
    sit_out_epoch: int = 0  # which sit-out the leave deadline belongs to
    play_id: str | None = None  # balance tables (no wallet session): the session id limits counts under
    credential: str | None = None  # the credential of the participant's latest command (its limits apply)

    @property
    def limits_session(self) -> str | None:
        """The session limits checks name: the wallet session, or the table's own for balance tables."""
        return self.session_id or self.play_id


@dataclass
class BankRun:
    """The current turn's time bank is running (the timer said `TimeBankStarted`)."""

    hand_id: str
    turn_id: int
    pid: str
    turn_due_at: datetime  # the plain turn clock that expired
    granted: float  # seconds granted (the player's whole bank)

    def left(self, at: datetime) -> float:
        return max(0.0, self.granted - max(0.0, (at - self.turn_due_at).total_seconds()))


@dataclass
class TimeBanks:
    """The table's time banks (docs/table.md "Player options"): the policy (None: the table has
    none), each player's bank (exact after each hand's refill) and the one running for the turn."""

    policy: TimeBankPolicy | None
    balances: dict[str, float] = field(default_factory=dict)  # participant -> seconds
    run: BankRun | None = None  # the actor's bank runs (their turn clock expired)

    def shown(self, pid: str | None) -> float | None:
        """A player's time bank as shown to clients (None: this table has no time bank)."""
        if self.policy is None or pid is None:
            return None
        run = self.run
        if run is not None and run.pid == pid:
            return round(run.left(now()), 3)
        return self.balances.get(pid, self.policy.initial_seconds)

    def end_run(self) -> None:
        """The turn whose bank ran is over: charge what it used (all of it on a timeout)."""
        run, self.run = self.run, None
        if run is not None:
            self.balances[run.pid] = round(run.left(now()), 3)


@dataclass
class Intermission:
    """The pause between hands at an auto-start table: how long it lasts, when the next hand is
    due (None: not scheduled), and the epoch that tells its deadline from stale ones."""

    seconds: float
    next_hand_at: datetime | None = None
    epoch: int = 0


@dataclass
class Waits:
    """What the table waits for (docs/table.md "Waiting for a service"): it deals no hand while
    any request of it is being retried."""

    requests: dict[str, int] = field(default_factory=dict)  # service -> requests being retried there
    pinging: set[str] = field(default_factory=set)  # services probed by their health subject


class Table:
    """One table's state, in groups: its rules, the seats and the hand, the ports it talks
    through, the services it waits for, its life (hands played, closing), and what its actor sets."""

    def __init__(self, config: TableConfig, deps: Deps) -> None:
        # the rules, fixed for the table's life
        self.config = config
        self.deps = deps
        self.profile = get_profile(config.rules_version)
        self.stakes = stakes_of(config)
        self.balance_plays = self.profile.money == "balance"
        self.turn_seconds = config.turn_seconds or deps.settings.turn_seconds
        # the seats and the hand
        self.seats: dict[int, Seat] = {}
        self.state: HandState | None = None  # the current (or last finished) hand
        self.hand_participants: dict[int, str] = {}  # seat number -> participant dealt into the hand
        self.hand_started_at = ""
        self.button: int | None = None
        # a benchmark match's dealer (mirrored pairs, stacks played to the depth); None elsewhere
        self.duplicate = Duplicate(config.max_buy_in or 0) if config.match is not None else None
        self.deadline: datetime | None = None  # the running turn's
        self.banks = TimeBanks(config.time_bank)
        self.ending: HandEnd | None = None  # the hand's end the wallet has not answered yet
        self.intermission = Intermission(config.intermission_seconds or deps.settings.intermission_seconds)
        # the ports (each keyed by the table id)
        self.events = Events(config.table_id, deps)
        self.wallet = Escrow(config.table_id, deps, self.balance_plays, config.chips)
        self.timers = Deadlines(config.table_id, deps)
        self.sessions = Sessions(config.table_id, deps, asks_limits=config.chips is None)
        # services that did not answer
        self.backoff = Backoff(deps.settings.retry_first_seconds, deps.settings.retry_max_seconds)
        self.waits = Waits()
        self.needs_reconcile = False  # stacks are re-read from the wallet before the next deal
        # the table's life
        self.hands_played = 0  # settled hands (config.max_hands counts them)
        self.close_requested: str | None = None  # who closed it (operator, host, idle; commands/closing.py)
        # a hosted table: the host's controls' state, blinds set for the next hand, the last time
        # someone sat here (a hosted table nobody sits at closes by itself)
        self.hosting = Hosting()
        self.next_config: TableConfig | None = None
        self.occupied_at = now()
        self.closed = False  # closed for good: no seats, no hands, joins refused
        # the actor running the table
        self.post: Callable[[object], None] = lambda command: None  # into this table's queue (set by the actor)
        self.background: set[asyncio.Task[None]] = set()  # retries running for it
        self.command_id = ""  # the message id of the command being run (ids of what it causes derive from it)
        self.stale_ignored = 0  # deadlines and timer events that came for a turn or epoch already past

    @property
    def tid(self) -> str:
        return self.config.table_id

    @property
    def hand_running(self) -> bool:
        return self.state is not None and self.state.phase != "over"

    @property
    def can_deal(self) -> bool:
        """No new hand while the last one's end is unanswered, a service is being waited for, the
        host paused dealing, or the host holds the table and has not said `go`."""
        held = self.hosting.held and not self.hosting.go
        return self.ending is None and not self.waits.requests and not self.hosting.paused and not held

    def emit(self, kind: EventKind, *, private_to: str | None = None, **fields: Any) -> dict[str, Any]:
        return self.events.emit(kind, private_to=private_to, **fields)

    def result(self, status: str = "ok", **kw: Any) -> TableResult:
        return TableResult(table_id=self.tid, seq=self.events.seq, status=status, **kw)

    def stack_after(self, number: int, chips: int) -> int:
        """A dealt seat's stack once the hand left it `chips` (with what a match kept behind)."""
        return chips if self.duplicate is None else self.duplicate.after(number, chips)

    def rebuys(self, seat: Seat) -> bool:
        """Auto-rebuy is on for the seat: its choice, or always at a match table (equal depth)."""
        return seat.auto_rebuy or self.duplicate is not None

    def seat_of(self, pid: str) -> Seat | None:
        return next((seat for seat in self.seats.values() if seat.pid == pid), None)

    def require_seat(self, pid: str) -> Seat:
        seat = self.seat_of(pid)
        if seat is None:
            raise BusError(ErrorCode.NOT_SEATED, "not seated at this table", participant_id=pid)
        return seat

    def in_hand(self, number: int) -> bool:
        """Seat `number` was dealt into the running hand."""
        return self.hand_running and self.state is not None and self.state.index_of(number) is not None

    def played(self, seat: Seat) -> bool:
        """This seat's occupant (not a later one on the same seat) was dealt into the current hand."""
        hand = self.state
        return (
            hand is not None
            and hand.index_of(seat.number) is not None
            and self.hand_participants.get(seat.number) == seat.pid
        )

    def note_credential(self, command: object) -> None:
        """A seated participant's command names the credential it came with: the seat's limits
        checks name it from now on (a new key or token carries its own policy)."""
        cred = getattr(command, "credential_id", None)
        if cred is not None and (seat := self.seat_of(getattr(command, "participant_id", ""))) is not None:
            seat.credential = cred

    def hand_plays(self) -> dict[int, str | None] | None:
        """Balance tables: the play session of each seat dealt into the hand (None elsewhere)."""
        if not self.balance_plays:
            return None
        return {
            number: seat.play_id
            for number, seat in self.seats.items()
            if self.hand_participants.get(number) == seat.pid
        }

    def showable(self, seat: Seat) -> bool:
        """May this seat show its cards now? Once the hand it played is over, until the next deal,
        unless they are already shown (the Texas Hold'em rules' voluntary reveal)."""
        hand = self.state
        if hand is None or hand.phase != "over" or not self.played(seat):
            return False
        i = hand.index_of(seat.number)
        return i is not None and hand.shown[i] is None

    @property
    def tournament(self) -> bool:
        """A tournament table (its stacks are a tournament's chips): nobody leaves with chips, an
        absent player is dealt in, posts and is folded (blinded out) until they come back."""
        return self.config.chips is not None

    @staticmethod
    def absent(seat: Seat) -> bool:
        return seat.sitting_out or not seat.connected

    def eligible(self, *, need_ready: bool) -> list[Seat]:
        """Seats that can be dealt in now, in seat order (the profile says who covers the forced bet)."""
        out = []
        for seat in sorted(self.seats.values(), key=lambda other: other.number):
            if seat.leaving or (self.absent(seat) and not self.tournament):
                continue
            if need_ready and not seat.ready:
                continue
            if not eligible_stack(self.profile, self.stakes, seat.stack):
                continue
            out.append(seat)
        return out


#: a command's work at its table (each module's COMMANDS maps a command type to one)
Handler = Callable[[Table, Any], Awaitable[TableResult]]


@dataclass(frozen=True)
class Do:
    """Internal command: run `fn` in the table's queue (how a background retry hands its answer back)."""

    fn: Callable[[Table], Awaitable[None]]
