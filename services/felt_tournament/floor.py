"""The floor: every running tournament's play, one step at a time, its chips and its level clock.

At the start the entrants' stacks are issued as the tournament's chips (wallet/chips.py); the
tables are made, seated and told when to deal by tables.py (a Sit & Go is its one-table case).
Every table's stacks are those chips (`TableConfig.chips`) and it is hosted by the tournament
(`host_id`), so each level's blinds reach it as the host's between-hands `blinds` control.
Levels end on the timer service's deadlines; the level and its end are written down, so a
level that ended while the service was down is caught up when it runs again. When one entry is
left every table closes, the chips retire and the director pays the prizes (places.py places
the busts).

Every step is idempotent (the wallet's issue and retirement ids, the table's message ids, the
same deadline key), so a crash anywhere is repaired by running the step again; what was read
is written down with the events' sequence numbers.
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
from felt_contracts.table import (
    Host,
    HostControl,
    StartMode,
    TableCommand,
    TableConfig,
    TableRequest,
    TableResult,
)
from felt_contracts.timer import DeadlineKind, DeadlineScheduled, ScheduleDeadline, TimerFired
from felt_contracts.tournament import Level, TournamentDefinition
from felt_contracts.wallet import ChipsIssue, ChipsMoved, ChipsRetire, ChipsStack
from felt_runtime.bus import BusError, call
from felt_tournament.director import Director
from felt_tournament.progress import Play
from felt_tournament.store import entries, tournaments
from felt_tournament.tables import Tables, eliminations, table_id

log = logging.getLogger("felt.tournament.floor")

#: the timer owner of the level clocks (fired deadlines come on `timer_fired(OWNER)`)
OWNER = "tournament"


def host_id(tournament_id: str) -> str:
    """The table's host: the tournament itself (its level changes are the host's controls)."""
    return f"tournament:{tournament_id}"


def table_config(d: TournamentDefinition) -> TableConfig:
    first = d.levels[0]
    chips = d.starting_chips * d.max_entrants
    return TableConfig(
        table_id=table_id(d.tournament_id, 1),
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
                    await Tables(self, d, field, play, table_config(d)).close_all()  # cancelled while playing:
                    await self._retire(tid)  # every table closes (cashed out), then the chips retire
                    play.retired = True
                    await self._save(tid, play)
                return
            if play is None:
                play = Play(table_id=table_config(d).table_id, level_ends_at=_now() + _length(d.levels[0]))
                await self._save(tid, play)
            tables = Tables(self, d, field, play, table_config(d))
            if not play.seated:
                await self._issue(d, field)
                await tables.seat()
                play.seated = True
                await self._save(tid, play)
                await self._schedule_level(tid, play)
            if not play.done:
                await self._level_clock(d, play, tables)
                await tables.follow()
                play.done = len(play.busts) >= len(field) - 1
                await self._save(tid, play)
            if not play.done:
                return
            await tables.close_all()
            await self._retire(tid)
        winner = next(e["entry_id"] for e in field if e["entry_id"] not in {b.entry_id for b in play.busts})
        await self.director.finish(tid, eliminations(play), winner)

    async def _issue(self, d: TournamentDefinition, field: list[dict[str, Any]]) -> None:
        """Every entrant's starting stack as the tournament's chips (once: the issue's id)."""
        tid = d.tournament_id
        stacks = [ChipsStack(participant_id=e["account_id"], amount=d.starting_chips) for e in field]
        issue = ChipsIssue(message_id=f"{tid}:issue", ledger_id=tid, issue_id="start", stacks=stacks)
        await call(self.broker, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved, timeout=self.timeout)

    # --- the level clock ------------------------------------------------------------------------
    async def _level_clock(self, d: TournamentDefinition, play: Play, tables: Tables) -> None:
        """Every level whose end has passed gives way to the next: every table takes its blinds
        (a break: no table is told to deal, tables.py); then the current level's end is the
        timer's deadline."""
        moved = False
        while play.level + 1 < len(d.levels) and _now() >= play.level_ends_at:
            play.level += 1
            play.level_ends_at += _length(d.levels[play.level])
            moved = True
            level = d.levels[play.level]
            if not level.is_break:
                blinds: dict[str, Any] = {"small_blind": level.small_blind, "big_blind": level.big_blind}
                blinds.update(ante=level.ante, ante_mode=level.ante_mode, level=play.level + 1)
                await tables.host_all("blinds", f"level:{play.level}", **blinds)
        if moved:
            await self._save(d.tournament_id, play)
            await self._schedule_level(d.tournament_id, play)

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

    # --- the end ----------------------------------------------------------------------------------
    async def _retire(self, tid: str) -> None:
        """Every table closed (every seat cashed out into its chips account): the chips retire."""
        retire = ChipsRetire(message_id=f"{tid}:retire", ledger_id=tid)
        await call(self.broker, subjects.WALLET_CHIPS_RETIRE, retire, ChipsMoved, timeout=self.timeout)

    # --- helpers ----------------------------------------------------------------------------------
    async def host_at(self, table_id: str, control: HostControl, message_id: str, **fields: Any) -> TableResult:
        host = Host(participant_id=host_id(message_id.split(":", 1)[0]), control=control, **fields)
        return await self.command_at(table_id, host, message_id)

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


def _length(level: Level) -> timedelta:
    return timedelta(seconds=level.duration_seconds)


def _now() -> datetime:
    return datetime.now(UTC)
