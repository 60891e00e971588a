"""The play of a running tournament: one table-service table, its level clock and its busts.

At the start the entrants' stacks are issued as the tournament's chips (wallet/chips.py) and a
table is created whose stacks are those chips (`TableConfig.chips`), hosted by the tournament
(`host_id`), so the level's blinds reach it as the host's between-hands `blinds` control; it is
paused while every entrant is seated with their whole stack, then deals by itself. The table's
numbered events are read in order (`GetEvents`): a `hand_start` gives the stacks the hand
started with, a seat closed `busted` is an elimination in that hand (places.py places them).
Levels end on the timer service's deadlines; the level and its end are written down, so a
level that ended while the service was down is caught up when it runs again. When one entry is
left the table closes, the chips retire and the director pays the prizes.

Every step is idempotent (the wallet's issue and retirement ids, the table's message ids, the
same deadline key), so a crash anywhere is repaired by running the step again; what was read
is written down with the events' sequence number in one transaction.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from faststream.nats import NatsBroker
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import (
    CloseTable,
    CreateTable,
    GetEvents,
    Host,
    HostControl,
    StartMode,
    TableCommand,
    TableConfig,
    TableRequest,
    TableResult,
    TableSummary,
)
from felt_contracts.timer import DeadlineKind, DeadlineScheduled, ScheduleDeadline, TimerFired
from felt_contracts.tournament import Level, TournamentDefinition
from felt_contracts.wallet import ChipsIssue, ChipsMoved, ChipsRetire, ChipsStack
from felt_runtime.bus import BusError, call
from felt_tournament.director import Director
from felt_tournament.places import Bust
from felt_tournament.progress import Busted, Play
from felt_tournament.store import entries, tournaments
from felt_tournament.tables import Tables, eliminations, join_of, several

log = logging.getLogger("felt.tournament.play")

#: the timer owner of the level clocks (fired deadlines come on `timer_fired(OWNER)`)
OWNER = "tournament"


def host_id(tournament_id: str) -> str:
    """The table's host: the tournament itself (its level changes are the host's controls)."""
    return f"tournament:{tournament_id}"


def table_config(d: TournamentDefinition) -> TableConfig:
    first = d.levels[0]
    chips = d.starting_chips * d.max_entrants
    return TableConfig(
        table_id=f"{d.tournament_id}-1",
        name=d.name[:50],
        rules_version=d.rules_version,
        small_blind=first.small_blind,
        big_blind=first.big_blind,
        ante=first.ante,
        ante_mode=first.ante_mode,
        min_buy_in=first.big_blind,
        max_buy_in=max(chips, first.big_blind),
        seats=d.seats_per_table,
        start_mode=StartMode.AUTO,
        turn_seconds=d.turn_seconds,
        chips=d.tournament_id,
        host_id=host_id(d.tournament_id),
        level=1,
    )


class Floor:
    """Runs every running tournament's play (one task; the director's lock per tournament)."""

    def __init__(self, engine: AsyncEngine, broker: NatsBroker, director: Director, *, timeout: float) -> None:
        self.engine = engine
        self.broker = broker
        self.director = director
        self.timeout = timeout
        self.wake = asyncio.Event()

    async def keep_playing(self, poll_seconds: float) -> None:
        """Look at every running tournament every `poll_seconds` (sooner when a level ends)."""
        while True:
            self.wake.clear()
            for tid in await self._running():
                try:
                    await self.step(tid)
                except BusError as exc:
                    log.warning(
                        "a tournament step failed", extra={"tournament_id": tid, "code": exc.code, "detail": str(exc)}
                    )
                except Exception:
                    log.exception("a tournament step failed", extra={"tournament_id": tid})
            try:
                await asyncio.wait_for(self.wake.wait(), poll_seconds)
            except TimeoutError:
                pass

    async def level_fired(self, ev: TimerFired) -> None:
        """A level's deadline: the next look advances the clock (it reads the time written down)."""
        _ = ev
        self.wake.set()

    async def _running(self) -> list[str]:
        """Running tournaments, and those cancelled while playing whose chips are not retired."""
        c = tournaments.c
        query = sa.select(c.tournament_id, c.status, c.play).where(
            (c.status == "running") | (c.status.in_(("cancelling", "cancelled")) & c.play.isnot(None))
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [tid for tid, status, raw in rows if status == "running" or not Play.model_validate_json(raw).retired]

    async def step(self, tid: str) -> None:
        async with self.director.locks[tid]:
            t, d, field = await self._load(tid)
            play = Play.model_validate_json(t["play"]) if t["play"] else None
            if t["status"] != "running":
                if play is not None and not play.retired and t["status"] in ("cancelling", "cancelled"):
                    await Tables(self, d, field, play, table_config(d)).close_others()  # cancelled while playing: every
                    await self._end(tid, play)  # table closes (cashed out), then the chips retire
                    play.retired = True
                    await self._save(tid, play)
                return
            if play is None:
                play = Play(table_id=table_config(d).table_id, level_ends_at=_now() + _length(d.levels[0]))
                await self._save(tid, play)
            # late entries may need more tables: such a tournament plays as one of several tables
            multi = (
                Tables(self, d, field, play, table_config(d))
                if several(d, len(field)) or d.late_registration_level
                else None
            )
            if not play.seated:
                await (self._seat_tables(d, field, play, multi) if multi else self._seat(d, field, play))
                await self._save(tid, play)
            if not play.done:
                await self._level_clock(d, play, multi)
                await (self._follow(play, multi, field) if multi else self._read(d, play, field))
            if not play.done:
                return
            if multi:
                await multi.close_others()
            await self._end(tid, play)
        winner = next(e["entry_id"] for e in field if e["entry_id"] not in {b.entry_id for b in play.busts})
        await self.director.finish(tid, eliminations(play) if multi else _eliminations(play), winner)

    async def _seat_tables(
        self, d: TournamentDefinition, field: list[dict[str, Any]], play: Play, multi: Tables
    ) -> None:
        """Several tables: chips issued, every table made with its drawn players, dealing on."""
        await self._issue(d, field)
        await multi.seat()
        await multi.follow()
        play.seated = True
        await self._schedule_level(d.tournament_id, play)

    async def _follow(self, play: Play, multi: Tables, field: list[dict[str, Any]]) -> None:
        await multi.follow()
        play.done = len(play.busts) >= len(field) - 1
        await self._save(multi.tid, play)

    # --- the start ----------------------------------------------------------------------------
    async def _seat(self, d: TournamentDefinition, field: list[dict[str, Any]], play: Play) -> None:
        """Chips issued, the table made (paused), every entrant seated with their stack, dealing on."""
        tid = d.tournament_id
        await self._issue(d, field)
        try:
            create = CreateTable(message_id=f"{tid}:table", config=table_config(d))
            await call(self.broker, subjects.TABLE_CREATE, create, TableSummary, timeout=self.timeout)
        except BusError as exc:
            if exc.code is not ErrorCode.CONFLICT:  # conflict: made before a crash
                raise
        await self._host(play, "pause", f"{tid}:pause")
        for e in field:
            try:
                await self._command(play, join_of(e, d.starting_chips), f"{tid}:seat:{e['account_id']}")
            except BusError as exc:
                if exc.code is not ErrorCode.ALREADY_SEATED:
                    raise
        await self._host(play, "resume", f"{tid}:resume")
        play.seated = True
        await self._schedule_level(tid, play)

    async def _issue(self, d: TournamentDefinition, field: list[dict[str, Any]]) -> None:
        """Every entrant's starting stack as the tournament's chips (once: the issue's id)."""
        tid = d.tournament_id
        stacks = [ChipsStack(participant_id=e["account_id"], amount=d.starting_chips) for e in field]
        issue = ChipsIssue(message_id=f"{tid}:issue", ledger_id=tid, issue_id="start", stacks=stacks)
        await call(self.broker, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved, timeout=self.timeout)

    # --- the level clock ------------------------------------------------------------------------
    async def _level_clock(self, d: TournamentDefinition, play: Play, multi: Tables | None = None) -> None:
        """Every level whose end has passed gives way to the next (a break pauses the table);
        then the current level's end is the timer's deadline."""
        moved = False
        while play.level + 1 < len(d.levels) and _now() >= play.level_ends_at:
            play.level += 1
            play.level_ends_at += _length(d.levels[play.level])
            moved = True
            await (self._apply_levels(d, play, multi) if multi else self._apply_level(d, play))
        if moved:
            await self._save(d.tournament_id, play)
            await self._schedule_level(d.tournament_id, play)

    async def _apply_level(self, d: TournamentDefinition, play: Play) -> None:
        tid, level = d.tournament_id, d.levels[play.level]
        if level.is_break:
            await self._host(play, "pause", f"{tid}:level:{play.level}:pause")
            return
        await self._host(
            play,
            "blinds",
            f"{tid}:level:{play.level}",
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            ante_mode=level.ante_mode,
            level=play.level + 1,
        )
        if d.levels[play.level - 1].is_break:
            await self._host(play, "resume", f"{tid}:level:{play.level}:resume")

    async def _apply_levels(self, d: TournamentDefinition, play: Play, multi: Tables) -> None:
        """Several tables: each takes the level's blinds (a break: no table deals, tables.py)."""
        level = d.levels[play.level]
        if not level.is_break:
            blinds: dict[str, Any] = {"small_blind": level.small_blind, "big_blind": level.big_blind}
            blinds.update(ante=level.ante, ante_mode=level.ante_mode)
            blinds["level"] = play.level + 1
            await multi.host_all("blinds", f"level:{play.level}", **blinds)

    async def save_play(self, tid: str, play: Play) -> None:
        await self._save(tid, play)

    async def _schedule_level(self, tid: str, play: Play) -> None:
        """The timer wakes the service when the level ends (the same key: rescheduling replaces it)."""
        delay = max(0.05, (play.level_ends_at - _now()).total_seconds())
        req = ScheduleDeadline(
            owner=OWNER,
            key=f"{tid}:level",
            kind=DeadlineKind.OTHER,
            delay_seconds=delay,
            payload={"tournament_id": tid, "level": play.level},
        )
        await call(self.broker, subjects.TIMER_SCHEDULE, req, DeadlineScheduled, timeout=self.timeout)

    # --- the table's events -----------------------------------------------------------------------
    async def _read(self, d: TournamentDefinition, play: Play, field: list[dict[str, Any]]) -> None:
        """Follow the table's events since the last read: seats, starting stacks, busts."""
        tid, entry_of = d.tournament_id, {e["account_id"]: e["entry_id"] for e in field}
        res = await self._command(play, GetEvents(after_seq=play.seq, limit=500), None)
        for ev in res.events:
            play.seq = max(play.seq, ev.seq)
            if ev.kind in ("seated", "waiting") and ev.seat is not None and ev.participant_id:
                play.seats[ev.seat] = ev.participant_id
            elif ev.kind == "hand_start" and ev.stacks:
                play.hand += 1
                play.stacks = {play.seats[int(s)]: n for s, n in ev.stacks.items() if int(s) in play.seats}
            elif ev.kind == "session_closed" and ev.detail == "busted" and (pid := ev.participant_id) in entry_of:
                assert pid is not None
                play.busts.append(
                    Busted(entry_id=entry_of[pid], hand=play.hand, stack=play.stacks.get(pid, 0), seat=ev.seat or 0)
                )
            elif ev.kind == "table_reset" and ev.seq > 1:  # restarted: the hand refunded, no seats
                play.reset = ev.seq  # (the first event of every table is its opening's)
        if play.reset:
            await self._reseat(d, play, field)
        play.done = len(play.busts) >= len(field) - 1
        if res.events:
            await self._save(tid, play)

    async def _reseat(self, d: TournamentDefinition, play: Play, field: list[dict[str, Any]]) -> None:
        """After a `table_reset` (the table service restarted the table: the hand in progress
        cancelled, every stack cashed out into its chips account): paused, every player not out
        sits down again at their seat with the whole of their chips, then it deals again (not in a
        break). A player whose chips account is empty had ended the last hand with nothing: out in it."""
        tid, out = d.tournament_id, {b.entry_id for b in play.busts}
        entries = {e["account_id"]: e for e in field}
        await self._host(play, "pause", f"{tid}:pause:reset:{play.reset}")
        for seat, pid in sorted(play.seats.items()):
            if pid not in entries or entries[pid]["entry_id"] in out:
                continue
            try:
                await self._command(play, join_of(entries[pid], None, seat), f"{tid}:reseat:{play.reset}:{pid}")
            except BusError as exc:
                if exc.code is not ErrorCode.INSUFFICIENT_FUNDS:
                    if exc.code is ErrorCode.ALREADY_SEATED:  # sat down again before a crash
                        continue
                    raise
                stack = play.stacks.get(pid, 0)
                play.busts.append(Busted(entry_id=entries[pid]["entry_id"], hand=play.hand, stack=stack, seat=seat))
        if not d.levels[play.level].is_break:
            await self._host(play, "resume", f"{tid}:resume:reset:{play.reset}")
        play.reset = 0

    # --- the end ----------------------------------------------------------------------------------
    async def _end(self, tid: str, play: Play) -> None:
        """Close the table (every seat cashed out into its chips account), retire the chips."""
        try:
            close = CloseTable(message_id=f"{tid}:close", table_id=play.table_id)
            await call(self.broker, subjects.TABLE_CLOSE, close, TableSummary, timeout=self.timeout)
        except BusError as exc:
            if exc.code is not ErrorCode.NOT_FOUND:
                raise
        retire = ChipsRetire(message_id=f"{tid}:retire", ledger_id=tid)
        await call(self.broker, subjects.WALLET_CHIPS_RETIRE, retire, ChipsMoved, timeout=self.timeout)

    # --- helpers ----------------------------------------------------------------------------------
    async def _host(self, play: Play, control: HostControl, message_id: str, **fields: Any) -> None:
        await self.host_at(play.table_id, control, message_id, **fields)

    async def host_at(self, table_id: str, control: HostControl, message_id: str, **fields: Any) -> TableResult:
        host = Host(participant_id=host_id(message_id.split(":", 1)[0]), control=control, **fields)
        return await self.command_at(table_id, host, message_id)

    async def _command(self, play: Play, command: TableCommand, message_id: str | None) -> TableResult:
        return await self.command_at(play.table_id, command, message_id)

    async def command_at(self, table_id: str, command: TableCommand, message_id: str | None) -> TableResult:
        req = TableRequest(table_id=table_id, command=command)
        if message_id is not None:
            req = req.model_copy(update={"message_id": message_id})
        return await call(self.broker, subjects.table_command(table_id), req, TableResult, timeout=self.timeout)

    async def _load(self, tid: str) -> tuple[dict[str, Any], TournamentDefinition, list[dict[str, Any]]]:
        async with self.engine.connect() as conn:
            t = dict(
                (await conn.execute(sa.select(tournaments).where(tournaments.c.tournament_id == tid))).mappings().one()
            )
            query = (
                sa.select(entries)
                .where(entries.c.tournament_id == tid, entries.c.status == "registered")
                .order_by(entries.c.registered_at, entries.c.entry_id)
            )
            field = [dict(r) for r in (await conn.execute(query)).mappings().all()]
        return t, TournamentDefinition.model_validate_json(t["definition"]), field

    async def _save(self, tid: str, play: Play) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.update(tournaments).where(tournaments.c.tournament_id == tid).values(play=play.model_dump_json())
            )


def _eliminations(play: Play) -> list[list[Bust]]:
    """The busts hand by hand, in the order the hands were played (places.py)."""
    hands: dict[int, list[Bust]] = {}
    for b in play.busts:
        hands.setdefault(b.hand, []).append(Bust(b.entry_id, b.stack, b.seat))
    return [hands[h] for h in sorted(hands)]


def _length(level: Level) -> timedelta:
    return timedelta(seconds=level.duration_seconds)


def _now() -> datetime:
    return datetime.now(UTC)
