"""Benchmark matches (docs/agents.md, "The ladder"): a bot of the asked level plays an owner's
agent at a match table, deals mirrored in pairs. The gateway makes the match: it has a bot held
here (`reserve`), the table service make the table naming it, then the bot seated (`play`); this
service sends nothing to another service, its bots play through the gateway's REST API.

Each level has its own match bots (a bot's results on the ladder are those of one level); a bot
plays one match at a time, so concurrent matches of a level get more bots. A hold the gateway
never follows up (it died between its steps) lapses after `FELT_BOTS_MATCH_HOLD_SECONDS`, its bot
free again. The table's terms name the bot that plays: where it is not the one held (a retry
after a lapse or a restart), the held one is freed and the named one found (`_named`), as a
restarted service does for the match tables still open (`resume`). A match bot acts without a
pause and stops once its table has closed (after the match's hands)."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from felt_bots.levels import LEVELS
from felt_bots.player import Bot
from felt_bots.roster import identity
from felt_bots.settings import LEVEL_NAMES
from felt_client import ApiError, FeltClient, Retry
from felt_contracts.bots import Level
from felt_contracts.errors import ErrorCode
from felt_contracts.ladder import MatchBot, PlayMatch, ReleaseBot, ReserveBot
from felt_runtime.bus import BusError

log = logging.getLogger("felt.bots")

#: match bots are numbered from here, a block per level (the lobby's bots count up from 0)
FIRST_NUMBER = 10_000
PER_LEVEL = 1_000


@contextmanager
def accounts_answer() -> Iterator[None]:
    """A match bot's account the gateway did not open (it is away or busy): the match waits."""
    try:
        yield
    except ApiError as exc:
        raise BusError(ErrorCode.UNAVAILABLE, f"a match bot's account: the gateway answered {exc}") from None


@dataclass
class Hold:
    """A bot held for a match the gateway is making, until `until` (monotonic seconds)."""

    bot: Bot
    until: float


class Matches:
    """Every match bot: free (per level), held for a match the gateway is making, or playing one."""

    def __init__(self, roster: Any) -> None:
        self.roster = roster
        self.made: dict[Level, list[Bot]] = {}  # every match bot of a level, in number order
        self.idle: dict[Level, list[Bot]] = {}
        self.held: dict[str, Hold] = {}  # match id -> its bot, held for the gateway's next step
        self.playing: dict[str, Bot] = {}  # match id -> its bot, seated at the match's table
        self.hold_seconds = roster.settings.match_hold_seconds
        self.lock = asyncio.Lock()

    async def reserve(self, req: ReserveBot) -> MatchBot:
        """A bot of the level held for the match (the same match again: the same bot)."""
        async with self.lock:
            self._lapse()
            playing, hold = self.playing.get(req.match_id), self.held.get(req.match_id)
            bot = playing or (hold.bot if hold is not None else None)
            if bot is not None and bot.level != req.level:
                raise BusError(ErrorCode.CONFLICT, "a match with this id has other terms", field="matchId")
            if playing is not None:
                return MatchBot(match_id=req.match_id, participant_id=playing.participant_id, state="playing")
            with accounts_answer():
                bot = bot or self._idle(req.level) or await self._make_bot(req.level)
            self.held[req.match_id] = Hold(bot, time.monotonic() + self.hold_seconds)
            return MatchBot(match_id=req.match_id, participant_id=bot.participant_id, state="reserved")

    async def play(self, req: PlayMatch) -> MatchBot:
        """Seat the bot the table's terms name (a finished match: free the one held)."""
        terms = req.match.terms
        async with self.lock:
            self._lapse()
            if (bot := self.playing.get(terms.match_id)) is not None:
                return MatchBot(match_id=terms.match_id, participant_id=bot.participant_id, state="playing")
            hold = self.held.pop(terms.match_id, None)
            if hold is not None and (req.match.status == "finished" or hold.bot.participant_id != terms.opponent_id):
                self._free(hold.bot)
                hold = None
            if req.match.status == "finished":
                return MatchBot(match_id=terms.match_id, participant_id=None, state="released")
            with accounts_answer():
                bot = hold.bot if hold is not None else await self._named(terms.level, terms.opponent_id)
            self._start(bot, terms.match_id, req.match.table_id)
            return MatchBot(match_id=terms.match_id, participant_id=bot.participant_id, state="playing")

    async def release(self, req: ReleaseBot) -> MatchBot:
        """Free the bot held for a match the table did not make (a playing one plays on)."""
        async with self.lock:
            if (bot := self.playing.get(req.match_id)) is not None:
                return MatchBot(match_id=req.match_id, participant_id=bot.participant_id, state="playing")
            hold = self.held.pop(req.match_id, None)
            if hold is not None:
                self._free(hold.bot)
            who = hold.bot.participant_id if hold is not None else None
            return MatchBot(match_id=req.match_id, participant_id=who, state="released")

    async def resume(self) -> None:
        """After a restart: seat again the bot of every match table still open (the lobby's
        configs name the bot; its identity is found among the level's numbers)."""
        async with FeltClient(self.roster.gateway_url, retry=Retry(attempts=60, cap=2.0)) as lobby:
            tables = await lobby.tables(kind="agent")
        async with self.lock:
            for table in tables:
                terms = table.get("match")
                if terms is None or table.get("closed") or terms["matchId"] in self.playing:
                    continue
                try:
                    bot = await self._named(terms["level"], terms["opponentId"])
                except BusError as exc:
                    log.warning("match bot not seated", extra={"table": table["tableId"], "error": exc.message})
                    continue
                self._start(bot, terms["matchId"], table["tableId"])

    def _lapse(self) -> None:
        """Free the bots of the holds the gateway did not follow up in time."""
        now = time.monotonic()
        for match_id, hold in list(self.held.items()):
            if hold.until <= now:
                del self.held[match_id]
                self._free(hold.bot)

    async def _named(self, level: Level, participant_id: str) -> Bot:
        """The bot a match table's terms name, taken from wherever it waits (free, or held for
        another match: the table's terms bind it); one not made since a start is found among the
        level's numbers, the bots made on the way left free."""
        made = self.made.setdefault(level, [])
        bot = next((b for b in made if b.participant_id == participant_id), None)
        while bot is None:
            if len(made) >= PER_LEVEL:
                raise BusError(ErrorCode.NOT_FOUND, f"no {level} match bot is {participant_id!r}")
            made_bot = await self._make_bot(level)
            if made_bot.participant_id == participant_id:
                bot = made_bot
            else:
                self._free(made_bot)
        if bot in self.playing.values():
            raise BusError(ErrorCode.UNAVAILABLE, "the match's bot plays another match: retry once it finished")
        for match_id, hold in list(self.held.items()):
            if hold.bot is bot:
                del self.held[match_id]
        if bot in self.idle.get(level, []):
            self.idle[level].remove(bot)
        return bot

    def _start(self, bot: Bot, match_id: str, table_id: str) -> None:
        bot.table_id, bot.seat, bot.cursor, bot.stale = table_id, None, 0, True
        self.playing[match_id] = bot
        self.roster.tasks.append(asyncio.create_task(self._play(bot, match_id), name=table_id))

    def _idle(self, level: Level) -> Bot | None:
        idle = self.idle.get(level)
        return idle.pop() if idle else None

    def _free(self, bot: Bot) -> None:
        self.idle.setdefault(bot.level, []).append(bot)

    async def _make_bot(self, level: Level) -> Bot:
        """The level's next match bot (its account made, or logged into, through the gateway)."""
        made = self.made.setdefault(level, [])
        number = FIRST_NUMBER + PER_LEVEL * LEVEL_NAMES.index(level) + len(made)
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
        made.append(bot)
        return bot

    async def _play(self, bot: Bot, match_id: str) -> None:
        """Play the match to its end, then wait for the next one."""
        try:
            await bot.run()
        finally:
            async with self.lock:
                if self.playing.get(match_id) is bot:
                    del self.playing[match_id]
                bot.table_id, bot.seat = "", None
                self._free(bot)
