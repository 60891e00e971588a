"""The play of a tournament's tables (seating.py decides, this carries it out); a field of one
table is the one-table case (a Sit & Go), played the same way at table 1.

At the start the field is drawn over the fewest tables (`seating.draw`), each a table-service
table hosted by the tournament and held (the host's `hold`: it deals a hand only on the host's
`go`, one hand per go) while its players sit down at their drawn seats. Every table then deals
one hand per `go`, so each is between hands, dealing nothing, until the tournament has read its
events, run `seating.plan` and told it to go: no move or hand-for-hand round races a deal. Moves are written down in the tournament's
log before they are carried out, and are carried out as two idempotent table commands: the
host's `unseat` cashes the player's stack out into their tournament chips account at the
source, then a `Join` at the drawn seat brings all of it to the destination (the table service
keeps one table session per player, so nobody sits at two tables). All of a plan's players
leave before any sits down (a final-table redraw swaps seats). A table the plan holds, or one
waiting for the other tables' hand-for-hand round, is not told to go; a broken table closes.
A table the table service restarted or another replica took over (`table_reset`: the hand in
progress refunded, every stack cashed out into its chips account, no seats) gets its players
back at the same seats with all their chips before anything else happens there.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import CloseTable, CreateTable, GetEvents, Join, ParticipantKind, TableConfig, TableSummary
from felt_contracts.wallet import ChipsIssue, ChipsMoved, ChipsStack
from felt_contracts.tournament import TournamentDefinition
from felt_runtime.bus import BusError, call
from felt_tournament import seating
from felt_tournament.places import Bust
from felt_tournament.prizes import tier_for
from felt_tournament.progress import Busted, MoveRecord, Play, TablePlay

if TYPE_CHECKING:
    from felt_tournament.floor import Floor


def table_id(tid: str, number: int) -> str:
    return f"{tid}-{number}"


def live(play: Play) -> dict[int, TablePlay]:
    return {n: t for n, t in play.tables.items() if not t.broken}


class Tables:
    """Carries out one tournament's play at its tables for the floor (under its lock)."""

    def __init__(
        self, floor: Floor, d: TournamentDefinition, field: list[dict[str, Any]], play: Play, config: TableConfig
    ) -> None:
        self.floor, self.d, self.play, self.config = floor, d, play, config
        self.tid = d.tournament_id
        self.entries = len(field)  # a re-entry is an entry of its own
        self.field = {e["account_id"]: e for e in field}  # each player's latest entry
        self.hold: frozenset[int] = frozenset()  # the tables the last plan holds

    # --- the start ------------------------------------------------------------------------------
    async def seat(self) -> None:
        """Every table made and held, every entrant at their drawn seat; then they deal."""
        play, tid = self.play, self.tid
        if not play.tables:
            drawn = seating.draw(sorted(self.field), self.d.seats_per_table, random.Random(tid))
            play.tables = {t.number: TablePlay(table_id=table_id(tid, t.number), seats=dict(t.seats)) for t in drawn}
        for number, t in play.tables.items():
            await self._open(number, t)
            for seat_no, pid in t.seats.items():
                try:
                    await self._join(t.table_id, pid, seat_no, self.d.starting_chips, f"{tid}:seat:{pid}")
                except BusError as exc:
                    if exc.code is not ErrorCode.ALREADY_SEATED:
                        raise

    async def _open(self, number: int, t: TablePlay) -> None:
        """The table made on the table service (once: its message id), held."""
        try:
            cfg = self.config.model_copy(update={"table_id": t.table_id, "name": f"{self.config.name[:44]} #{number}"})
            create = CreateTable(message_id=f"{self.tid}:table:{number}", config=cfg)
            await call(self.floor.broker, subjects.TABLE_CREATE, create, TableSummary, timeout=self.floor.timeout)
        except BusError as exc:
            if exc.code is not ErrorCode.CONFLICT:
                raise
        await self.floor.host_at(t.table_id, "hold", f"{self.tid}:{number}:hold")

    # --- between hands --------------------------------------------------------------------------
    async def follow(self) -> None:
        """Read every table; between hands: moves, then a go for the tables that may deal."""
        for number, t in live(self.play).items():
            await self._read(number, t)
            if t.reset:
                await self._reseat(number, t)
        if self._done():
            return
        await self._arrivals()
        idle = {n for n, t in live(self.play).items() if not t.going and t.hand_id is None and not t.zero}
        if not await self._finish_moves(idle):
            return
        if not any(not m.done for m in self.play.moves):
            await self._plan(idle)
        if not any(not m.done for m in self.play.moves):
            await self._deal(idle)

    def _done(self) -> bool:
        return len(self.play.busts) >= self.entries - 1

    async def _arrivals(self) -> None:
        """Late registrations and re-entries: each entry neither seated, moving nor out gets its
        starting stack (one issue per entry) and draws a seat (`seating.arrive`: at a table with
        the fewest players; a table opens when every one is full, numbered after every table the
        tournament had), written in the log as a move from nowhere (table 0) and carried out as
        the moves are: a join at the drawn seat with the whole stack."""
        play = self.play
        placed = {p for t in live(play).values() for p in t.seats.values()} | {
            m.player for m in play.moves if not m.done
        }
        out = {b.entry_id for b in play.busts}
        arriving = [e for pid, e in sorted(self.field.items()) if pid not in placed and e["entry_id"] not in out]
        for e in arriving:
            pid, eid = e["account_id"], e["entry_id"]
            stack = ChipsStack(participant_id=pid, amount=self.d.starting_chips)
            issue = ChipsIssue(message_id=f"{self.tid}:issue:{eid}", ledger_id=self.tid, issue_id=eid, stacks=[stack])
            await call(self.floor.broker, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved, timeout=self.floor.timeout)
            tables = [seating.Table(n, dict(t.seats), t.button) for n, t in live(play).items()]
            rng = random.Random(f"{self.tid}:{eid}")
            _, number, seat = seating.arrive(tables, pid, self.d.seats_per_table, rng)
            if number not in live(play):
                number = max(play.tables) + 1
                play.tables[number] = TablePlay(table_id=table_id(self.tid, number))
            reason = "re_entry" if e["number"] > 1 else "late_registration"
            play.moves.append(
                MoveRecord(
                    player=pid, from_table=0, from_seat=0, to_table=number, to_seat=seat, reason=reason, hand=play.hand
                )
            )
            play.tables[number].seats[seat] = pid  # drawn: the next draw sees it taken
        if arriving:
            await self.floor.save_play(self.tid, play)  # the log first

    async def _read(self, number: int, t: TablePlay) -> None:
        play = self.play
        res = await self.floor.command_at(t.table_id, GetEvents(after_seq=t.seq, limit=500), None)
        for ev in res.events:
            t.seq = max(t.seq, ev.seq)
            if ev.kind in ("seated", "waiting") and ev.seat is not None and ev.participant_id:
                t.seats[ev.seat] = ev.participant_id
            elif ev.kind == "hand_start" and ev.stacks:
                play.hand += 1
                t.hand, t.hand_id, t.button, t.going = play.hand, ev.hand_id, ev.seat, False
                t.stacks = {t.seats[int(s)]: n for s, n in ev.stacks.items() if int(s) in t.seats}
            elif ev.kind == "hand_end":
                t.hand_id = None
                ends = ev.stacks or {}
                t.zero = [t.seats[int(s)] for s, n in ends.items() if n == 0 and int(s) in t.seats]
            elif ev.kind == "table_reset" and ev.seq > 1:  # restarted: the hand refunded, no seats
                t.hand_id, t.reset = None, ev.seq  # (the first event of every table is its opening's)
            elif ev.kind in ("left", "session_closed") and ev.participant_id:
                pid = ev.participant_id
                t.seats = {s: p for s, p in t.seats.items() if p != pid}
                t.zero = [p for p in t.zero if p != pid]
                if ev.detail == "busted" and pid in self.field:
                    self._bust(number, t, pid, ev.seat or 0)

    def _bust(self, number: int, t: TablePlay, pid: str, seat: int) -> None:
        busted = Busted(
            entry_id=self.field[pid]["entry_id"],
            hand=t.hand,
            stack=t.stacks.get(pid, 0),
            seat=seat,
            table=number,
            round=t.round,
        )
        self.play.busts.append(busted)

    async def _reseat(self, number: int, t: TablePlay) -> None:
        """After a `table_reset`: the table held without a go (a go not dealt yet is taken back:
        it deals when the plan says), then everyone it had sits down again at their seat with the
        whole of their chips (the refunded hand's stacks, docs/table.md "Restart policy"). A player
        whose chips account is empty ended the last hand with nothing before their seat closed: out
        in that hand. A hand-for-hand round's cancelled hand is dealt again."""
        await self.floor.host_at(t.table_id, "hold", f"{self.tid}:{number}:hold:reset:{t.reset}")
        t.going = False
        for seat, pid in sorted(t.seats.items()):
            try:
                await self._join(t.table_id, pid, seat, None, f"{self.tid}:{number}:reseat:{t.reset}:{pid}")
            except BusError as exc:
                if exc.code is ErrorCode.INSUFFICIENT_FUNDS:
                    del t.seats[seat]
                    self._bust(number, t, pid, seat)
                elif exc.code is not ErrorCode.ALREADY_SEATED:  # already: sat down again before a crash
                    raise
        if t.round and t.round == self.play.hfh_round:
            self.play.hfh_started = [n for n in self.play.hfh_started if n != number]
        t.zero, t.reset = [], 0
        await self.floor.save_play(self.tid, self.play)

    async def _plan(self, idle: set[int]) -> None:
        for t in live(self.play).values():
            if not t.seats and len(live(self.play)) > 1:  # broken (or emptied by busts): it closes
                await self._close(t)
        tables = [seating.Table(n, dict(t.seats), t.button) for n, t in live(self.play).items()]
        rng = random.Random(f"{self.tid}:{len(self.play.moves)}:{self.play.hand}")
        plan = seating.plan(tables, self.d.seats_per_table, idle, rng)
        self.hold = plan.hold
        for m in plan.moves:
            self.play.moves.append(MoveRecord(**vars(m), hand=self.play.hand))
        if plan.moves:
            await self.floor.save_play(self.tid, self.play)  # the log first
            await self._finish_moves(idle)
            await self._plan(idle)  # the broken tables close; what the seating is now

    async def _finish_moves(self, idle: set[int]) -> bool:
        """Carry out the log's pending moves: every player leaves, then every one sits down.
        False while a cash-out is still to come (the next look finishes them)."""
        pending = [(i, m) for i, m in enumerate(self.play.moves) if not m.done]
        for i, m in pending:
            if not m.from_table:  # an arrival: the table it drew may be one to open
                if not self.play.tables[m.to_table].seq:
                    await self._open(m.to_table, self.play.tables[m.to_table])
                continue
            src = self.play.tables[m.from_table]
            if m.player in src.seats.values():
                res = await self.floor.host_at(src.table_id, "unseat", f"{self.tid}:move:{i}:out", participant=m.player)
                if res.status != "now":
                    return False
                src.seats = {s: p for s, p in src.seats.items() if p != m.player}
        for i, m in pending:
            dest = self.play.tables[m.to_table]
            try:
                await self._join(dest.table_id, m.player, m.to_seat, None, f"{self.tid}:move:{i}:in")
            except BusError as exc:
                if exc.code is ErrorCode.INSUFFICIENT_FUNDS:  # the cash-out is not in yet
                    return False
                raise
            dest.seats[m.to_seat] = m.player
            m.done = True
        if pending:
            await self.floor.save_play(self.tid, self.play)
        return True

    async def _deal(self, idle: set[int]) -> None:
        """Tell the idle tables that may deal to go: two players or more, not held by the plan, not
        in a break, and under hand-for-hand only within the round (seating.HandForHand)."""
        play = self.play
        if self.d.levels[play.level].is_break:
            return
        tables = live(play)
        able = {n for n in idle & set(tables) if len(tables[n].seats) >= 2 and n not in self.hold}
        busy = {n for n, t in tables.items() if t.hand_id is not None or t.going}
        players = sum(len(t.seats) for t in tables.values())
        percents = tier_for(self.d.payouts, self.entries).percents
        hfh = seating.hand_for_hand([int(p > 0) for p in percents], players, len(tables))
        state = seating.HandForHand(play.hfh_round or 1, frozenset(play.hfh_started))
        for n in sorted(able):
            if hfh:
                if not state.may_deal(n, busy, able | busy):
                    continue
                state = state.deal(n, busy, able | busy)
                play.hfh_round, play.hfh_started = state.round, sorted(state.started)
                tables[n].round = state.round
            else:
                tables[n].round = 0
            await self.floor.host_at(tables[n].table_id, "go", f"{self.tid}:{n}:go:{tables[n].seq}")
            tables[n].going = True
            busy.add(n)
        await self.floor.save_play(self.tid, play)

    # --- levels and the end -----------------------------------------------------------------------
    async def host_all(self, control: Any, key: str, **fields: Any) -> None:
        for number, t in live(self.play).items():
            await self.floor.host_at(t.table_id, control, f"{self.tid}:{number}:{key}", **fields)

    async def close_all(self) -> None:
        """The end: every table closes, the first (the final table) last; it is asked again after a
        crash (a table closed already is not found)."""
        for t in live(self.play).values():
            if t.table_id != self.play.table_id:
                await self._close(t)
        try:
            await self._close_table(self.play.table_id)
        except BusError as exc:
            if exc.code is not ErrorCode.NOT_FOUND:
                raise

    async def _close(self, t: TablePlay) -> None:
        """Written down first: an empty table holds no chips, and one the table service has let
        go of (no seats) is not reached again."""
        t.broken = True
        await self.floor.save_play(self.tid, self.play)
        try:
            await self._close_table(t.table_id)
        except BusError as exc:
            if t.seats or exc.code not in (ErrorCode.NOT_FOUND, ErrorCode.UNAVAILABLE):
                raise

    async def _close_table(self, table: str) -> None:
        close = CloseTable(message_id=f"{table}:close", table_id=table)
        await call(self.floor.broker, subjects.TABLE_CLOSE, close, TableSummary, timeout=self.floor.timeout)

    async def _join(self, table: str, pid: str, seat: int, chips: int | None, message_id: str) -> None:
        await self.floor.command_at(table, join_of(self.field[pid], chips, seat), message_id)


def join_of(entry: dict[str, Any], chips: int | None, seat: int | None = None) -> Join:
    """The entry's player sits down (as registered) with `chips` (None: all they hold)."""
    return Join(
        participant_id=entry["account_id"],
        owner_id=entry["owner_id"],
        kind=ParticipantKind(entry["kind"]),
        name=entry["name"],
        buy_in=chips,
        seat=seat,
    )


def eliminations(play: Play) -> list[list[Bust]]:
    """The busts hand by hand in the order the hands were dealt; a hand-for-hand round's busts at
    every table are one hand (`seating.one_round`)."""
    groups: dict[tuple[int, int], dict[int, list[Bust]]] = {}
    first: dict[tuple[int, int], int] = {}
    for b in play.busts:
        key = (b.round, 0) if b.round else (0, b.hand)
        first[key] = min(first.get(key, b.hand), b.hand)
        groups.setdefault(key, {}).setdefault(b.table, []).append(Bust(b.entry_id, b.stack, b.seat))
    return [seating.one_round(groups[k]) for k in sorted(groups, key=lambda k: (first[k], k))]
