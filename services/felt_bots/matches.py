"""Benchmark matches (docs/agents.md, "The ladder"): a bot of the asked level plays an owner's
agent at a match table the table service makes for the two of them, deals mirrored in pairs.

Each level has its own match bots (a bot's results on the ladder are those of one level); a bot
plays one match at a time, so concurrent matches of a level get more bots. A match bot acts
without a pause and stops once its table has closed (after the match's hands). A restarted
service seats again the bots of the match tables still open."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from felt_bots.levels import LEVELS
from felt_bots.player import Bot
from felt_bots.roster import identity
from felt_client import FeltClient, Retry
from felt_contracts import subjects
from felt_contracts.bots import Level
from felt_contracts.ladder import CreateMatch, MatchResult, MatchTerms, StartMatch
from felt_runtime.bus import call
from felt_bots.settings import LEVEL_NAMES

#: match bots are numbered from here, a block per level (the lobby's bots count up from 0)
FIRST_NUMBER = 10_000
PER_LEVEL = 1_000


class Matches:
    def __init__(self, roster: Any, broker: Any) -> None:
        self.roster = roster
        self.broker = broker
        self.busy: dict[str, Bot] = {}  # match table -> its bot
        self.idle: dict[Level, list[Bot]] = {}
        self.lock = asyncio.Lock()

    async def start(self, req: StartMatch) -> MatchResult:
        """The match's table with a bot of the level seated (the same match again: as it stands)."""
        async with self.lock:
            bot = self.busy.get(f"match-{req.match_id}") or await self._free_bot(req.level)
            terms = MatchTerms(
                match_id=req.match_id,
                owner_id=req.owner_id,
                participant_id=req.participant_id,
                opponent_id=bot.participant_id,
                level=req.level,
                deals=req.hands // 2,
            )
            try:
                result = await call(self.broker, subjects.TABLE_MATCH_CREATE, CreateMatch(terms=terms), MatchResult)
            except BaseException:
                if bot.table_id == "":
                    self.idle[req.level].append(bot)
                raise
            if result.status == "running" and result.table_id not in self.busy:
                self._start(bot, result.table_id)
            elif bot.table_id == "":
                self.idle[req.level].append(bot)
            return result

    async def resume(self) -> None:
        """After a restart: seat again the bot of every match table still open (the lobby's
        configs name the bot; its identity is found among the level's numbers)."""
        async with FeltClient(self.roster.gateway_url, retry=Retry(attempts=60, cap=2.0)) as lobby:
            tables = await lobby.tables(kind="agent")
        async with self.lock:
            for table in tables:
                terms = table.get("match")
                if terms is None or table.get("closed") or table["tableId"] in self.busy:
                    continue
                searched: list[Bot] = []
                for _ in range(PER_LEVEL):
                    bot = await self._free_bot(terms["level"])
                    if bot.participant_id == terms["opponentId"]:
                        self._start(bot, table["tableId"])
                        break
                    searched.append(bot)
                    self.busy[f"searching-{len(searched)}"] = bot  # counted: the next number is tried
                for n, bot in enumerate(searched, 1):
                    del self.busy[f"searching-{n}"]
                    self.idle.setdefault(bot.level, []).append(bot)

    def _start(self, bot: Bot, table_id: str) -> None:
        bot.table_id, bot.seat, bot.cursor, bot.stale = table_id, None, 0, True
        self.busy[table_id] = bot
        self.roster.tasks.append(asyncio.create_task(self._play(bot), name=table_id))

    async def _free_bot(self, level: Level) -> Bot:
        idle = self.idle.setdefault(level, [])
        if idle:
            return idle.pop()
        number = (
            FIRST_NUMBER
            + PER_LEVEL * LEVEL_NAMES.index(level)
            + sum(1 for bot in self.busy.values() if bot.level == level)
        )
        roster = self.roster
        who = await identity(roster.gateway_url, number, level, roster.password, roster.settings.email_domain)
        bot = Bot(
            FeltClient(roster.gateway_url, api_key=who.api_key, retry=Retry(attempts=10, cap=10.0), timeout=30),
            who.participant_id,
            who.name,
            level,
            "",
            LEVELS[level],
            random.Random(),
            broke_recheck_seconds=roster.settings.broke_recheck_seconds,
            until_closed=True,
        )
        roster.bots.append(bot)
        return bot

    async def _play(self, bot: Bot) -> None:
        """Play the match to its end, then wait for the next one."""
        try:
            await bot.run()
        finally:
            async with self.lock:
                self.busy.pop(bot.table_id, None)
                bot.table_id, bot.seat = "", None
                self.idle.setdefault(bot.level, []).append(bot)
