"""One bot at one table: sit down when it can afford it, decide on its turn with its level's
decision function over exactly the view the API returned, start hands at explicit-start
tables, and leave when it would hold a seat it does not play (broke, below the ante, sat out).

The loop reads the view, acts if it is its turn, then long-polls the table's events (which
also counts its hands and any turn its clock ended). The view is read again only when the
events call for it: its own turn, or anything besides the play of a hand (a hand's end, a seat
taken or freed, a pause) or a quiet long-poll; reading it after every event was most of what
the bots asked of the gateway. A restart of the table clears the seat; the client sits down
again, or the bot does once it can afford it.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field
from typing import Any, get_args

from felt_bots.levels import Decide
from felt_client import ApiError, Conflict, FeltClient
from felt_contracts.bots import BotInfo, Level
from felt_contracts.names import OperationKind

log = logging.getLogger("felt.bots.player")
#: refusals that mean the hand or seat is gone, not that the action was wrong
GONE = frozenset({"hand_closed", "not_seated"})
#: the play of a hand: after these the bot has nothing to look at unless one starts its turn
PLAY = frozenset(get_args(OperationKind)) - {"hand_end"} | {"turn", "time_bank", "preaction"}


@dataclass
class Tally:
    hands: int = 0
    actions: int = 0
    refused: int = 0
    errors: int = 0
    timeouts: int = 0


@dataclass
class Bot:
    client: FeltClient
    participant_id: str
    name: str
    level: Level
    table_id: str
    decide: Decide
    rng: random.Random
    think_seconds: float = 0.0  # a pause before each action, so people can follow
    pause_seconds: float = 1.0  # between hands at explicit-start tables
    wait_seconds: float = 10.0  # long-poll
    broke_recheck_seconds: float = 30.0
    until_closed: bool = False  # a match bot: stop once the table has closed
    invite_code: str | None = None  # a host's bot: the pass its table gave it
    tournament_id: str | None = None  # a tournament's bot: plays the table it is seated at, until placed
    tally: Tally = field(default_factory=Tally)
    seat: int | None = None
    cursor: int = 0
    stale: bool = True  # read the view before the next long-poll
    done: bool = False  # a match bot whose table closed

    def info(self) -> BotInfo:
        return BotInfo(
            participant_id=self.participant_id,
            name=self.name,
            level=self.level,
            table_id=self.table_id,
            seated=self.seat is not None,
            **vars(self.tally),
        )

    async def run(self) -> None:
        """Play until cancelled (a match bot: until its table closed); errors are counted and
        waited out, never fatal."""
        self.done = False
        while not self.done:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                self.tally.errors += 1
                self.stale = True  # whatever happened meanwhile, the view says
                log.warning(
                    "bot call failed",
                    extra={"bot": self.name, "table": self.table_id, "code": exc.code, "error": exc.message},
                )
                await asyncio.sleep(1.0)

    async def step(self) -> None:
        if self.tournament_id is not None and not await self.follow():
            return
        if self.seat is None or self.stale:
            await self.look()
            if self.seat is None:
                return
        page = await self.client.poll(self.table_id, after=self.cursor, wait=self.wait_seconds)
        self.observe(page.events)
        self.cursor = page.last_seq
        self.stale = not page.events or any(self.calls_for_a_look(ev) for ev in page.events)

    async def follow(self) -> bool:
        """A tournament's bot: play the table the tournament seats it at (it moves with it);
        done once placed or the tournament is over. False while it has no table."""
        t = await self.client.tournament(self.tournament_id or "")
        if t["yourPlace"] is not None or t["status"] in ("finished", "cancelled"):
            self.done = True
            return False
        table_id = t["yourTable"]
        if table_id != self.table_id:
            self.table_id, self.cursor, self.seat, self.stale = table_id or "", 0, None, True
        if table_id is None:
            await asyncio.sleep(1.0)
            return False
        return True

    def calls_for_a_look(self, event: dict[str, Any]) -> bool:
        turn = event.get("turn") or {}
        return event.get("kind") not in PLAY or (turn.get("seat") == self.seat and self.seat is not None)

    async def look(self) -> None:
        """Read the view and do what it calls for: sit down, leave, act, or start a hand."""
        view = await self.client.view(self.table_id, invite=self.invite_code)
        table = view.get("table") or {}
        self.seat = table.get("yourSeatId")
        if self.until_closed and table.get("closed"):
            self.done = True
        elif self.seat is None:
            if self.tournament_id is not None:  # the tournament seats it
                await asyncio.sleep(1.0)
            elif not await self.sit_down(table):
                await asyncio.sleep(self.broke_recheck_seconds)
        elif self.tournament_id is None and self.should_leave(table):
            await self.stand_up()
        elif (hand := table.get("hand") or {}).get("legalActions") and hand.get("actorSeatId") == self.seat:
            await self.act(view)
        elif self.may_start(table):
            await asyncio.sleep(self.pause_seconds)
            await self.start()

    async def sit_down(self, table: dict[str, Any]) -> bool:
        """Join with what it can afford (the table's maximum at most); False when broke."""
        config = table.get("config") or {}
        available = (await self.client.balance()).available
        if config.get("minBuyIn") is None:  # the balance plays
            if available < max(config.get("ante") or 0, 1):
                return False
            buy_in = None
        else:
            if available < config["minBuyIn"]:
                return False
            buy_in = min(available, config["maxBuyIn"])
        try:
            joined = await self.client.join(self.table_id, buy_in=buy_in, invite_code=self.invite_code)
        except ApiError as exc:
            if exc.code in ("table_full", "insufficient_funds", "limit_exceeded", "frozen", "chips_in_play"):
                return False  # looked at again later
            if exc.code == "already_seated":  # its last session is still being closed (a restart): soon
                await asyncio.sleep(1.0)
                return True
            raise
        self.seat = joined.seat
        self.cursor = max(self.cursor, joined.seq)
        return True

    async def stand_up(self) -> None:
        """Leave the table. A seat already gone is what was wanted: the table closes a broke
        seat itself, so its cash-out can land between the view the bot read and its leave."""
        try:
            await self.client.leave(self.table_id)
        except ApiError as exc:
            if exc.code != "not_seated":
                raise
        self.seat = None

    def should_leave(self, table: dict[str, Any]) -> bool:
        """A seat it does not play: sat out, or a stack that cannot be dealt in."""
        mine = next((s for s in table.get("seats", []) if s["seat"] == self.seat), None)
        if mine is None:
            return False
        if mine["status"] == "sitting_out" or mine.get("sittingOut"):
            return True
        hand = table.get("hand") or {}
        in_hand = hand.get("phase") not in (None, "over") and any(s["seat"] == self.seat for s in hand.get("seats", []))
        forced = (table.get("config") or {}).get("ante") or 0
        return not in_hand and (
            mine["stack"] == 0 or (table.get("config", {}).get("minBuyIn") is None and mine["stack"] < forced)
        )

    def may_start(self, table: dict[str, Any]) -> bool:
        hand = table.get("hand") or {}
        explicit = (table.get("config") or {}).get("startMode") == "explicit"
        return explicit and hand.get("phase") in (None, "over") and len(table.get("seats", [])) >= 2

    async def start(self) -> None:
        try:
            await self.client.start(self.table_id)
        except ApiError as exc:
            if exc.code != "conflict":  # conflict: not enough ready yet, or someone else started it
                raise

    async def act(self, view: dict[str, Any]) -> None:
        hand = view["table"]["hand"]
        action = self.decide(view, self.rng)
        if self.think_seconds:
            await asyncio.sleep(self.think_seconds * (0.5 + self.rng.random()))
        try:
            await self.client.act(self.table_id, action, hand_id=hand["handId"], turn_id=hand["turnId"])
            self.tally.actions += 1
        except Conflict as exc:
            if exc.code in GONE:
                return  # the hand ended under us (a restart of the table cancelled it): nothing was illegal
            self.tally.refused += 1
            log.warning(
                "action refused",
                extra={
                    "bot": self.name,
                    "table": self.table_id,
                    "code": exc.code,
                    "action": action,
                    "error": exc.message,
                },
            )

    def observe(self, events: list[dict[str, Any]]) -> None:
        for ev in events:
            if ev.get("kind") == "hand_start" and str(self.seat) in (ev.get("stacks") or {}):
                self.tally.hands += 1
            elif ev.get("detail") == "timeout" and ev.get("seat") == self.seat and ev.get("seat") is not None:
                self.tally.timeouts += 1
