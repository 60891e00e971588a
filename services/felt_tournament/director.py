"""The tournament director: definitions, registrations, cancellation and payouts.

Money moves exactly once because every step that asks the wallet is written down first: an
entry is `registering` (and `checked` once limits allowed its buy-in) before the wallet is
asked to move the buy-in under the entry's own id, `unregistering` before its refund, and the
tournament `cancelling` or `paying` before the pool is closed. A reply that does not come
leaves the step written down; the caller's retry, or `settle_pending` (at start and after every
step the wallet did not answer), sends the same request again, and the wallet returns the
first outcome. Everything of one tournament happens one step at a time (a lock per
tournament; one tournament process per room).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from faststream.nats import NatsBroker
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import CheckKind, LimitsCheck, LimitsDecision
from felt_contracts.tournament import (
    CreateTournament,
    Entrant,
    Register,
    Registration,
    TournamentDefinition,
    TournamentList,
    TournamentStatus,
    TournamentView,
    Unregister,
)
from felt_contracts.wallet import (
    Payout,
    PoolClose,
    PoolEntry,
    PoolEntryResult,
    PoolOutcome,
    PoolRefund,
    PoolRefundResult,
)
from felt_runtime.bus import BusError, call
from felt_tournament.definitions import check_definition
from felt_tournament.places import Bust, standings
from felt_tournament.prizes import award, tier_for
from felt_tournament.progress import Play
from felt_tournament.recurring import next_copy
from felt_tournament.store import entries, tournaments

log = logging.getLogger("felt.tournament")

Clock = Callable[[], datetime]
#: entry statuses that hold a place in the field
ACTIVE = ("registering", "registered")


def entry_id(tournament_id: str, account_id: str, number: int) -> str:
    """The entry's id, also its wallet transfer's: the same registration always has the same."""
    return f"{tournament_id}:{account_id}:{number}"


class Director:
    def __init__(
        self,
        engine: AsyncEngine,
        broker: NatsBroker,
        *,
        timeout: float,
        clock: Clock = lambda: datetime.now(UTC),
        recurring: TournamentDefinition | None = None,
    ) -> None:
        self.engine = engine
        self.broker = broker
        self.timeout = timeout
        self.clock = clock
        self.locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        #: something to look at: a step the wallet did not answer, or a new scheduled start
        self.wake = asyncio.Event()
        #: the recurring Sit & Go's template (recurring.py)
        self.recurring = recurring

    # --- definitions ------------------------------------------------------------------------
    async def create(self, req: CreateTournament) -> TournamentView:
        d = req.definition
        problem = check_definition(d, self.clock())
        if problem is not None:
            raise BusError(ErrorCode.MALFORMED, problem.message, field=problem.field, reason=problem.reason)
        async with self.locks[d.tournament_id], self.engine.begin() as conn:
            row = await _tournament(conn, d.tournament_id)
            if row is not None:
                if TournamentDefinition.model_validate_json(row["definition"]) != d:
                    raise BusError(
                        ErrorCode.CONFLICT, "a tournament with this id has another definition", field="tournament_id"
                    )
            else:
                await conn.execute(
                    sa.insert(tournaments).values(
                        tournament_id=d.tournament_id,
                        definition=d.model_dump_json(),
                        status="registering",
                        created_at=self.clock(),
                    )
                )
        if d.starts_at is not None:
            self.wake.set()  # `keep_settling` now waits for this start too
        return await self.view(d.tournament_id)

    async def reopen(self) -> None:
        """Open the recurring Sit & Go's next copy unless one takes registrations."""
        if self.recurring is not None:
            copy = next_copy(self.recurring, await self.listing(None))
            if copy is not None:
                await self.create(copy)

    async def view(self, tournament_id: str, *, with_entries: bool = True) -> TournamentView:
        async with self.engine.connect() as conn:
            row = await _tournament(conn, tournament_id)
            if row is None:
                raise BusError(ErrorCode.NOT_FOUND, "no such tournament", tournament_id=tournament_id)
            rows = await _entries(conn, tournament_id)
        return _view(row, rows, with_entries)

    async def listing(self, status: list[TournamentStatus] | None) -> TournamentList:
        query = sa.select(tournaments).order_by(tournaments.c.created_at, tournaments.c.tournament_id)
        if status:
            query = query.where(tournaments.c.status.in_(status))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
            views = [_view(dict(r), await _entries(conn, r["tournament_id"]), False) for r in rows]
        return TournamentList(tournaments=views)

    # --- registration -----------------------------------------------------------------------
    async def register(self, req: Register) -> Registration:
        async with self.locks[req.tournament_id]:
            async with self.engine.begin() as conn:
                t, d, mine = await self._entries_of(conn, req.tournament_id, req.account_id)
                done = next(
                    (e for e in mine if e["message_id"] == req.message_id and e["status"] != "registering"), None
                )
                if done is not None:  # a retry of a registration that went through
                    return await self._registration(req.tournament_id, req.account_id, done["entry_id"])
                resumed = next((e for e in mine if e["status"] == "registering"), None)
                if resumed is None:
                    _may_enter(t, d, [e["entry_id"] for e in mine if e["status"] == "registered"], req.account_id)
                    active = await _count(conn, req.tournament_id, ACTIVE)
                    if active >= d.max_entrants:
                        raise BusError(ErrorCode.TOURNAMENT_FULL, "the tournament is full", max_entrants=d.max_entrants)
                    number = max((e["number"] for e in mine), default=0) + 1
                    eid = entry_id(req.tournament_id, req.account_id, number)
                    await conn.execute(
                        sa.insert(entries).values(
                            entry_id=eid,
                            tournament_id=req.tournament_id,
                            account_id=req.account_id,
                            owner_id=req.owner_id,
                            kind=req.kind,
                            name=req.name,
                            message_id=req.message_id,
                            number=number,
                            status="registering",
                            checked=d.buy_in == 0,
                            prize=0,
                            registered_at=self.clock(),
                        )
                    )
                    resumed = {"entry_id": eid, "checked": d.buy_in == 0}
            if not resumed["checked"]:
                await self._check_limits(req, d, resumed["entry_id"])
            await self._enter(req.tournament_id, d, resumed["entry_id"], req.account_id)
            await self._start_when_full(req.tournament_id, d)
            return await self._registration(req.tournament_id, req.account_id, resumed["entry_id"])

    async def _check_limits(self, req: Register, d: TournamentDefinition, eid: str) -> None:
        """Limits' buy-in caps, before the buy-in moves; refused (or unanswered): the entry goes."""
        check = LimitsCheck(
            kind=CheckKind.BUY_IN,
            owner_id=req.owner_id,
            participant_id=req.account_id,
            credential_id=req.credential_id,
            amount=d.buy_in,
            hold=True,
        )
        try:
            await call(self.broker, subjects.LIMITS_CHECK, check, LimitsDecision, timeout=self.timeout)
        except BusError:
            async with self.engine.begin() as conn:
                await conn.execute(sa.delete(entries).where(entries.c.entry_id == eid))
            raise
        async with self.engine.begin() as conn:
            await conn.execute(sa.update(entries).where(entries.c.entry_id == eid).values(checked=True))

    async def _enter(self, tournament_id: str, d: TournamentDefinition, eid: str, account_id: str) -> None:
        """Move the buy-in (once, under the entry's id); the wallet refused: the entry goes."""
        if d.buy_in:
            move = PoolEntry(
                message_id=f"entry:{eid}", pool_id=tournament_id, entry_id=eid, account_id=account_id, amount=d.buy_in
            )
            try:
                await call(self.broker, subjects.WALLET_POOL_ENTRY, move, PoolEntryResult, timeout=self.timeout)
            except BusError as exc:
                if exc.code is ErrorCode.UNAVAILABLE:
                    self.wake.set()  # written down: finished by a retry or settle_pending
                else:
                    async with self.engine.begin() as conn:
                        await conn.execute(sa.delete(entries).where(entries.c.entry_id == eid))
                raise
        async with self.engine.begin() as conn:
            await conn.execute(sa.update(entries).where(entries.c.entry_id == eid).values(status="registered"))

    async def _start_when_full(self, tournament_id: str, d: TournamentDefinition) -> None:
        """A Sit & Go starts once its last seat is taken."""
        if d.starts_at is not None:
            return
        async with self.engine.begin() as conn:
            if await _count(conn, tournament_id, ("registered",)) < d.max_entrants:
                return
            await conn.execute(
                sa.update(tournaments)
                .where(tournaments.c.tournament_id == tournament_id, tournaments.c.status == "registering")
                .values(status="running", started_at=self.clock())
            )
        await self.reopen()

    async def unregister(self, req: Unregister) -> Registration:
        async with self.locks[req.tournament_id]:
            async with self.engine.begin() as conn:
                t, d, mine = await self._entries_of(conn, req.tournament_id, req.account_id)
            entry = next((e for e in mine if e["status"] in ("registering", "registered", "unregistering")), None)
            if entry is not None and entry["status"] != "unregistering" and t["status"] != "registering":
                raise BusError(
                    ErrorCode.TOURNAMENT_STARTED if t["status"] != "cancelled" else ErrorCode.REGISTRATION_CLOSED,
                    f"the tournament is {t['status']}: no unregistering",
                    status=t["status"],
                )
            if entry is None:
                raise BusError(ErrorCode.NOT_REGISTERED, "not registered", account_id=req.account_id)
            if entry["status"] == "registering":  # finish the half-done registration first
                await self._enter(req.tournament_id, d, entry["entry_id"], req.account_id)
            await self._leave(req.tournament_id, d, entry["entry_id"])
            return await self._registration(req.tournament_id, req.account_id, entry["entry_id"])

    async def _leave(self, tournament_id: str, d: TournamentDefinition, eid: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(sa.update(entries).where(entries.c.entry_id == eid).values(status="unregistering"))
        if d.buy_in:
            refund = PoolRefund(message_id=f"refund:{eid}", pool_id=tournament_id, entry_id=eid)
            try:
                await call(self.broker, subjects.WALLET_POOL_REFUND, refund, PoolRefundResult, timeout=self.timeout)
            except BusError as exc:
                if exc.code is ErrorCode.UNAVAILABLE:
                    self.wake.set()
                    raise
                if exc.code is not ErrorCode.CONFLICT:  # conflict: refunded already (or by the cancel)
                    raise
        async with self.engine.begin() as conn:
            await conn.execute(sa.update(entries).where(entries.c.entry_id == eid).values(status="unregistered"))

    async def _registration(self, tournament_id: str, account_id: str, eid: str) -> Registration:
        view = await self.view(tournament_id)
        entry = next(e for e in view.entries if e.entry_id == eid)
        return Registration(
            tournament_id=tournament_id,
            account_id=account_id,
            entry_id=eid,
            status=entry.status,
            entrants=view.entrants,
            prize_pool=view.prize_pool,
        )

    # --- the end: cancelled or paid ---------------------------------------------------------
    async def cancel(self, tournament_id: str) -> TournamentView:
        async with self.locks[tournament_id]:
            async with self.engine.begin() as conn:
                t = await self._must(conn, tournament_id)
                if t["status"] in ("paying", "finished"):
                    raise BusError(ErrorCode.CONFLICT, f"the tournament is {t['status']}", status=t["status"])
                if t["status"] in ("registering", "running"):
                    await _set_status(conn, tournament_id, "cancelling")
            await self._close(tournament_id)
        return await self.view(tournament_id)

    async def finish(self, tournament_id: str, eliminations: list[list[Bust]], winner: str) -> TournamentView:
        """The tournament is over: place every entry (places.py), work out the prizes
        (prizes.py), write both down, then pay them from the pool at once."""
        async with self.locks[tournament_id]:
            async with self.engine.begin() as conn:
                t = await self._must(conn, tournament_id)
                if t["status"] != "running":
                    raise BusError(ErrorCode.CONFLICT, f"the tournament is {t['status']}", status=t["status"])
                d = TournamentDefinition.model_validate_json(t["definition"])
                field = [e for e in await _entries(conn, tournament_id) if e["status"] == "registered"]
                if {e["entry_id"] for e in field} != {b.entry_id for hand in eliminations for b in hand} | {winner}:
                    raise BusError(ErrorCode.CONFLICT, "the finish does not place every entry once")
                finishes = standings(eliminations, winner)
                prizes = award(len(field) * d.buy_in, tier_for(d.payouts, len(field)).percents, finishes)
                for f in finishes:
                    for eid in f.entry_ids:
                        await conn.execute(
                            sa.update(entries).where(entries.c.entry_id == eid).values(place=f.best, prize=prizes[eid])
                        )
                await _set_status(conn, tournament_id, "paying")
            await self._close(tournament_id)
        return await self.view(tournament_id)

    async def _close(self, tournament_id: str) -> None:
        """Close the prize pool as written down (`cancelling`: refund every entry; `paying`: the
        prizes), then mark the tournament done. Unanswered: left for `settle_pending`."""
        async with self.engine.connect() as conn:
            t = await self._must(conn, tournament_id)
            rows = await _entries(conn, tournament_id)
        if t["status"] not in ("cancelling", "paying"):
            return
        d = TournamentDefinition.model_validate_json(t["definition"])
        paying = t["status"] == "paying"
        if d.buy_in:
            payouts = [Payout(account_id=e["account_id"], amount=e["prize"]) for e in rows if e["prize"] > 0]
            close = PoolClose(
                message_id=f"close:{tournament_id}",
                pool_id=tournament_id,
                outcome="paid" if paying else "refunded",
                payouts=payouts if paying else [],
            )
            try:
                await call(self.broker, subjects.WALLET_POOL_CLOSE, close, PoolOutcome, timeout=self.timeout)
            except BusError as exc:
                if exc.code is ErrorCode.UNAVAILABLE:
                    self.wake.set()
                raise
        async with self.engine.begin() as conn:
            await _set_status(conn, tournament_id, "finished" if paying else "cancelled", finished_at=self.clock())
            if not paying:
                await conn.execute(
                    sa.update(entries)
                    .where(entries.c.tournament_id == tournament_id, entries.c.status.in_(ACTIVE))
                    .values(status="refunded")
                )

    # --- what a crash or a silent wallet left half-way --------------------------------------
    async def settle_pending(self) -> int:
        """Finish (or drop) every step written down but not done; how many are still left."""
        async with self.engine.connect() as conn:
            open_entries = (
                (await conn.execute(sa.select(entries).where(entries.c.status.in_(("registering", "unregistering")))))
                .mappings()
                .all()
            )
            ending = (
                (await conn.execute(sa.select(tournaments).where(tournaments.c.status.in_(("cancelling", "paying")))))
                .mappings()
                .all()
            )
        left = 0
        for e in open_entries:
            try:
                await self._settle_entry(dict(e))
            except BusError as exc:
                left += exc.code is ErrorCode.UNAVAILABLE
        for t in ending:
            try:
                async with self.locks[t["tournament_id"]]:
                    await self._close(t["tournament_id"])
            except BusError as exc:
                left += 1
                log.warning(
                    "closing a prize pool failed", extra={"tournament_id": t["tournament_id"], "code": exc.code}
                )
        return left

    async def _settle_entry(self, e: dict[str, Any]) -> None:
        tid = e["tournament_id"]
        async with self.locks[tid]:
            async with self.engine.connect() as conn:
                t = await self._must(conn, tid)
                now = (
                    await conn.execute(sa.select(entries.c.status).where(entries.c.entry_id == e["entry_id"]))
                ).scalar()
            d = TournamentDefinition.model_validate_json(t["definition"])
            if now == "registering" and not e["checked"]:  # limits never answered: never asked the wallet
                async with self.engine.begin() as conn:
                    await conn.execute(sa.delete(entries).where(entries.c.entry_id == e["entry_id"]))
            elif now == "registering":
                try:
                    await self._enter(tid, d, e["entry_id"], e["account_id"])
                except BusError as exc:
                    if exc.code is ErrorCode.UNAVAILABLE:
                        raise
                    return  # refused: the entry is gone
                await self._start_when_full(tid, d)
            elif now == "unregistering":
                await self._leave(tid, d, e["entry_id"])

    async def start_due(self) -> float | None:
        """Start every scheduled tournament whose time has come, or cancel it (every entry
        refunded) when fewer than `min_entrants` registered; the seconds until the next start.
        The time is in the definition, so a start missed while the service was down happens
        as soon as it runs again."""
        async with self.engine.connect() as conn:
            query = sa.select(tournaments).where(tournaments.c.status == "registering")
            rows = (await conn.execute(query)).mappings().all()
        now = self.clock()
        waits = []
        for t in rows:
            d = TournamentDefinition.model_validate_json(t["definition"])
            if d.starts_at is None:
                continue
            if d.starts_at > now:
                waits.append((d.starts_at - now).total_seconds())
                continue
            async with self.locks[d.tournament_id]:
                async with self.engine.begin() as conn:
                    enough = await _count(conn, d.tournament_id, ("registered",)) >= d.min_entrants
                    await conn.execute(
                        sa.update(tournaments)
                        .where(tournaments.c.tournament_id == d.tournament_id, tournaments.c.status == "registering")
                        .values(status="running" if enough else "cancelling", started_at=now if enough else None)
                    )
                if not enough:
                    try:
                        await self._close(d.tournament_id)
                    except BusError as exc:  # sent again by `settle_pending`
                        log.warning("refunding an unfilled tournament failed", extra={"code": exc.code})
        return min(waits, default=None)

    async def keep_settling(self, retry_seconds: float) -> None:
        """Run `settle_pending` and `start_due` at start, and again whenever a step was left
        (every `retry_seconds`), a scheduled start is due, or something new is to be looked at."""
        while True:
            self.wake.clear()
            try:
                left = await self.settle_pending()
                due = await self.start_due()
            except Exception:
                log.exception("settling pending steps failed")
                left, due = 1, None
            waits = [w for w in (retry_seconds if left else None, due) if w is not None]
            try:
                await asyncio.wait_for(self.wake.wait(), min(waits, default=None))
            except TimeoutError:
                pass

    async def _entries_of(
        self, conn: AsyncConnection, tournament_id: str, account_id: str
    ) -> tuple[dict[str, Any], TournamentDefinition, list[dict[str, Any]]]:
        """The tournament, its definition and the account's entries in it."""
        t = await self._must(conn, tournament_id)
        mine = [e for e in await _entries(conn, tournament_id) if e["account_id"] == account_id]
        return t, TournamentDefinition.model_validate_json(t["definition"]), mine

    async def _must(self, conn: AsyncConnection, tournament_id: str) -> dict[str, Any]:
        row = await _tournament(conn, tournament_id)
        if row is None:
            raise BusError(ErrorCode.NOT_FOUND, "no such tournament", tournament_id=tournament_id)
        return row


def _may_enter(t: dict[str, Any], d: TournamentDefinition, entered: list[str], account_id: str) -> None:
    """Before the start anyone not registered may enter; once it runs, while late registration is
    open (through level `late_registration_level`), a player without an entry, or one whose
    entries all busted and who has a re-entry left (`re_entries`)."""
    play = Play.model_validate_json(t["play"]) if t["play"] else None
    if t["status"] == "registering":
        if entered:
            raise BusError(ErrorCode.ALREADY_REGISTERED, "already registered", account_id=account_id)
        return
    late = play.level if play is not None else 0  # the level playing, 0-based
    if t["status"] != "running" or late >= d.late_registration_level or (play is not None and play.done):
        raise BusError(
            ErrorCode.REGISTRATION_CLOSED,
            f"the tournament is {t['status']}" + (": late registration is over" if t["status"] == "running" else ""),
            status=t["status"],
            reason="late_registration_over" if t["status"] == "running" else t["status"],
        )
    busted = {b.entry_id for b in play.busts} if play is not None else set()
    if any(eid not in busted for eid in entered):
        raise BusError(ErrorCode.ALREADY_REGISTERED, "already playing", account_id=account_id, reason="playing")
    if len(entered) > d.re_entries:
        raise BusError(
            ErrorCode.ALREADY_REGISTERED,
            "no re-entry left" if d.re_entries else "this tournament has no re-entry",
            account_id=account_id,
            reason="re_entries_used" if d.re_entries else "no_re_entry",
            re_entries=d.re_entries,
        )


async def _tournament(conn: AsyncConnection, tournament_id: str) -> dict[str, Any] | None:
    row = (
        (await conn.execute(sa.select(tournaments).where(tournaments.c.tournament_id == tournament_id)))
        .mappings()
        .first()
    )
    return dict(row) if row else None


async def _entries(conn: AsyncConnection, tournament_id: str) -> list[dict[str, Any]]:
    query = (
        sa.select(entries)
        .where(entries.c.tournament_id == tournament_id)
        .order_by(entries.c.registered_at, entries.c.entry_id)
    )
    return [dict(r) for r in (await conn.execute(query)).mappings().all()]


async def _count(conn: AsyncConnection, tournament_id: str, statuses: tuple[str, ...]) -> int:
    query = sa.select(sa.func.count()).where(entries.c.tournament_id == tournament_id, entries.c.status.in_(statuses))
    return int((await conn.execute(query)).scalar_one())


async def _set_status(conn: AsyncConnection, tournament_id: str, status: str, **values: Any) -> None:
    await conn.execute(
        sa.update(tournaments).where(tournaments.c.tournament_id == tournament_id).values(status=status, **values)
    )


def _view(t: dict[str, Any], rows: list[dict[str, Any]], with_entries: bool) -> TournamentView:
    d = TournamentDefinition.model_validate_json(t["definition"])
    counted = ("registered",) if t["status"] not in ("cancelled",) else ("refunded",)
    entrants = sum(1 for e in rows if e["status"] in counted)
    play = Play.model_validate_json(t["play"]) if t["play"] else None
    live = t["status"] == "running" and play is not None and play.seated
    busted = {b.entry_id for b in play.busts} if play else set()
    at = {}  # where each player sits (as drawn, or as seated there after a move)
    if live and play:
        at = {pid: tp.table_id for tp in play.tables.values() if not tp.broken for pid in tp.seats.values()}
    return TournamentView(
        definition=d,
        status=t["status"],
        entrants=entrants,
        prize_pool=0 if t["status"] == "cancelled" else entrants * d.buy_in,
        created_at=t["created_at"],
        started_at=t["started_at"],
        finished_at=t["finished_at"],
        entries=[
            Entrant(
                account_id=e["account_id"],
                entry_id=e["entry_id"],
                status=e["status"],
                place=e["place"],
                prize=e["prize"],
                busted=e["entry_id"] in busted,
                table_id=at.get(e["account_id"]) if e["entry_id"] not in busted else None,
            )
            for e in rows
        ]
        if with_entries
        else [],
        level=play.level + 1 if live and play else 0,
        level_ends_at=play.level_ends_at if live and play else None,
        tables=[tp.table_id for tp in play.tables.values() if not tp.broken] if live and play else [],
        players_left=entrants - len(play.busts) if play else entrants if t["status"] == "running" else 0,
    )
