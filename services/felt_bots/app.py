"""The bots service: keeps `FELT_BOTS` bots seated at the configured tables (or at tables of
the lobby that admit agents and that a new account can afford), and adds bots on request
(`felt bots --table ID --level hard --count 3` → `BOTS_ADD`). Every bot is an ordinary agent
playing through the gateway with `felt_client`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable

from felt_bots.fill import keep_filling
from felt_bots.levels import LEVELS
from felt_bots.matches import Matches
from felt_bots.player import Bot
from felt_bots.roster import identity, secret
from felt_bots.settings import BotsSettings
from felt_client import ApiError, FeltClient, Retry
from felt_client.backoff import Backoff
from felt_contracts import subjects
from felt_contracts.bots import AddBots, BotsQuery, BotsStatus, Level, RemoveBot
from felt_contracts.ladder import MatchBot, PlayMatch, ReleaseBot, ReserveBot
from felt_runtime import catalog
from felt_runtime.bus import BusError, responder
from felt_runtime.service import ServiceContext, load_settings
from felt_contracts.errors import ErrorCode

log = logging.getLogger("felt.bots")


class Roster:
    """The running bots and their tasks."""

    def __init__(self, ctx: ServiceContext, settings: BotsSettings) -> None:
        self.settings = settings
        self.gateway_url = (
            settings.gateway_url or f"http://127.0.0.1:{ctx.settings.default_port(catalog.default_port('gateway'))}"
        )
        self.var_dir = ctx.settings.var_dir
        self.bots: list[Bot] = []
        self.tasks: list[asyncio.Task] = []
        self.added: dict[tuple[str, str], asyncio.Task] = {}  # (table, bot) -> the task playing it
        self.lock = asyncio.Lock()
        self.defaults_seated = 0  # of the configured bots (`seat_defaults`)

    @property
    def password(self) -> str:
        """The bots' owner password (made on first use, not when the service is assembled)."""
        return secret(self.var_dir)

    async def add(self, table_id: str, level: Level, count: int, invite_code: str | None = None) -> list[Bot]:
        """Seat `count` bots (`invite_code`: a host's pass for one, checked by the table itself)."""
        if invite_code is None:
            async with FeltClient(self.gateway_url) as lobby:
                if not any(t["tableId"] == table_id for t in await lobby.tables(kind="agent")):
                    raise BusError(ErrorCode.NOT_FOUND, f"no table {table_id!r} admits agents", table_id=table_id)
        async with self.lock:
            added = []
            for _ in range(count):
                bot = await self.new_bot(level, table_id=table_id, invite_code=invite_code)
                self.added[(table_id, bot.participant_id)] = self.tasks[-1]
                added.append(bot)
            return added

    async def enter(self, tournament_id: str, level: Level, count: int) -> list[Bot]:
        """Register `count` bots for a tournament; each plays the table it is seated at until placed."""
        async with self.lock:
            added = []
            for _ in range(count):
                bot = await self.new_bot(level, tournament_id=tournament_id)
                added.append(bot)
            return added

    async def new_bot(
        self, level: Level, *, table_id: str = "", invite_code: str | None = None, tournament_id: str | None = None
    ) -> Bot:
        """A bot with an identity of its own (a tournament's: registered first), playing."""
        number = len(self.bots)
        who = await identity(self.gateway_url, number, level, self.password, self.settings.email_domain)
        client = FeltClient(self.gateway_url, api_key=who.api_key, retry=Retry(attempts=10, cap=10.0), timeout=30)
        if tournament_id is not None:
            try:
                await client.register(tournament_id, idempotency_key=f"bot:{tournament_id}:{who.participant_id}")
            except ApiError:
                await client.aclose()
                raise
        bot = Bot(
            client,
            who.participant_id,
            who.name,
            level,
            table_id,
            LEVELS[level],
            random.Random(),
            think_seconds=self.settings.think_seconds,
            pause_seconds=self.settings.pause_seconds,
            broke_recheck_seconds=self.settings.broke_recheck_seconds,
            invite_code=invite_code,
            tournament_id=tournament_id,
        )
        self.bots.append(bot)
        self.tasks.append(asyncio.create_task(bot.run(), name=f"bot-{number}"))
        return bot

    async def seat_defaults(self) -> None:
        """The configured bots, once the gateway answers (it may start after us)."""
        if self.settings.count == 0:
            return
        tables = await self.default_tables()
        levels = self.settings.level_list()
        while (n := self.defaults_seated) < self.settings.count:  # a retry goes on from the first not seated
            table_id = (
                tables[(n // self.settings.per_table) % len(tables)]
                if not self.settings.table_list()
                else tables[n % len(tables)]
            )
            await self.add(table_id, levels[n % len(levels)], 1)
            self.defaults_seated += 1
        log.info("bots seated", extra={"count": self.settings.count, "tables": sorted(set(tables))})

    async def default_tables(self) -> list[str]:
        """The configured tables; else the lobby's tables that admit agents and that a new
        bot can afford (people-and-agents tables first, so a newcomer finds bots to play)."""
        if self.settings.table_list():
            return self.settings.table_list()
        async with FeltClient(self.gateway_url, retry=Retry(attempts=60, cap=2.0)) as lobby:
            tables = await lobby.tables(kind="agent")
            first = await identity(
                self.gateway_url, 0, self.settings.level_list()[0], self.password, self.settings.email_domain
            )
            lobby.credential = first.api_key
            chips = (await lobby.balance()).available
        fit = [t for t in tables if (t.get("minBuyIn") or 0) <= chips]
        if not fit:
            raise ApiError(404, "not_found", f"no table admitting agents has a minimum buy-in within {chips} chips")
        return [t["tableId"] for t in sorted(fit, key=lambda t: t.get("admission") != "MIXED")]

    async def stop(self) -> None:
        """Cancel the bots, then give their seats back (all at once, briefly: the gateway may
        be stopping too; a seat left behind is cleared by the table's own policies)."""
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.gather(
            *(asyncio.wait_for(b.client.leave(b.table_id), 3) for b in self.bots if b.seat is not None),
            return_exceptions=True,
        )
        for bot in self.bots:
            await bot.client.aclose()

    async def remove(self, table_id: str, participant_id: str) -> BotsStatus:
        """Stop a bot and give its seat back (a host removed it)."""
        task = self.added.get((table_id, participant_id))
        bot = next((b for b in self.bots if b.participant_id == participant_id and b.table_id == table_id), None)
        if bot is None or task is None or task.done():
            raise BusError(ErrorCode.NOT_FOUND, "no such bot at this table", participant_id=participant_id)
        task.cancel()  # it stays listed (its number names its account), stopped
        await asyncio.gather(task, return_exceptions=True)
        with contextlib.suppress(ApiError, TimeoutError):
            await asyncio.wait_for(bot.stand_up(), 5)
        return BotsStatus(bots=[bot.info()])

    def status(self, table_id: str | None = None) -> BotsStatus:
        return BotsStatus(bots=[b.info() for b in self.bots if table_id is None or b.table_id == table_id])


#: the waits between tries to seat the bots while the room is still starting (or away)
STARTUP_RETRY = Backoff(first=1.0, cap=15.0)


async def until_seated(what: str, step: Callable[[], Awaitable[None]]) -> None:
    """Run `step` until it succeeds: the room may not answer yet when the bots service starts
    first (the wallet still opening its database); a refusal that waiting cannot cure is logged
    once and left."""
    for wait in STARTUP_RETRY.delays():
        try:
            await step()
            return
        except ApiError as exc:
            if exc.status < 500 and exc.code != "unavailable":
                log.error(f"{what} not seated", extra={"code": exc.code, "error": exc.message})
                return
            log.warning(f"{what} not seated yet", extra={"code": exc.code, "error": exc.message, "retry_in": wait})
        await asyncio.sleep(wait)


def build(ctx: ServiceContext) -> None:
    settings = load_settings(ctx.name, BotsSettings)
    roster = Roster(ctx, settings)
    background: list[asyncio.Task] = []
    closing: list[FeltClient] = []

    matches = Matches(roster)

    @ctx.on_startup
    async def seat() -> None:
        async def run() -> None:
            for what, step in (("match bots", matches.resume), ("default bots", roster.seat_defaults)):
                await until_seated(what, step)

        background.append(asyncio.create_task(run()))
        if settings.fill_list():
            lobby = FeltClient(roster.gateway_url, retry=Retry(attempts=60, cap=2.0))
            level = settings.level_list()[0]
            fill = keep_filling(
                lobby, lambda tid, n: roster.enter(tid, level, n), settings.fill_list(), settings.fill_seconds
            )
            background.append(asyncio.create_task(fill, name="bots-fill"))
            closing.append(lobby)

    @ctx.on_shutdown
    async def stop() -> None:
        for task in background:
            task.cancel()
        for client in closing:
            await client.aclose()
        await roster.stop()

    # rare (operators): one at a time
    @responder(ctx.broker, subjects.BOTS_ADD, AddBots, queue=subjects.BOTS_QUEUE, concurrency=1)
    async def add(req: AddBots) -> BotsStatus:
        """Seat `count` new bots of `level` at `table_id`."""
        try:
            if req.tournament_id is not None:
                bots = await roster.enter(req.tournament_id, req.level, req.count)
            else:
                bots = await roster.add(req.table_id or "", req.level, req.count, req.invite_code)
        except ApiError as exc:
            code = ErrorCode(exc.code) if exc.code in ErrorCode._value2member_map_ else ErrorCode.UNAVAILABLE
            raise BusError(code, f"the gateway refused: {exc}") from None
        return BotsStatus(bots=[b.info() for b in bots])

    @responder(ctx.broker, subjects.BOTS_REMOVE, RemoveBot, queue=subjects.BOTS_QUEUE, concurrency=1)
    async def remove(req: RemoveBot) -> BotsStatus:
        """Stop a bot a host removed from its table."""
        return await roster.remove(req.table_id, req.participant_id)

    # one at a time: a match takes a free bot of its level
    @responder(ctx.broker, subjects.BOTS_MATCH_RESERVE, ReserveBot, queue=subjects.BOTS_QUEUE, concurrency=1)
    async def match_reserve(req: ReserveBot) -> MatchBot:
        """Hold a bot of `level` for a benchmark match the gateway is making."""
        return await matches.reserve(req)

    @responder(ctx.broker, subjects.BOTS_MATCH_PLAY, PlayMatch, queue=subjects.BOTS_QUEUE, concurrency=1)
    async def match_play(req: PlayMatch) -> MatchBot:
        """Seat the bot a match table's terms name (a finished match: free the bot held)."""
        return await matches.play(req)

    @responder(ctx.broker, subjects.BOTS_MATCH_RELEASE, ReleaseBot, queue=subjects.BOTS_QUEUE, concurrency=1)
    async def match_release(req: ReleaseBot) -> MatchBot:
        """Free the bot held for a match the table did not make."""
        return await matches.release(req)

    @responder(ctx.broker, subjects.BOTS_STATUS, BotsQuery, queue=subjects.BOTS_QUEUE, concurrency=1)
    async def status(req: BotsQuery) -> BotsStatus:
        """Every bot of this service (or of one table) and what it did."""
        return roster.status(req.table_id)
