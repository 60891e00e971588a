"""The group-commit writer: one asyncio task owns every write to the wallet database.

Commands queue up; the task takes every queued command (up to `batch_max`) without waiting
for more, applies each to one in-memory view of one transaction (a refused command is undone
alone and gets its own error), commits once, and only then replies to every caller. With
`group_commit` off, every command gets a transaction of its own (the naive baseline; same
code, batch size 1). If a whole batch fails at commit, its commands are retried one per
transaction so one bad apple cannot sink the rest.

A transaction is one synchronous call (`_transaction`, run by `felt_runtime.db.Transactions`:
on SQLite on a dedicated thread with a plain sqlite3 connection, one hand-off per batch; on
PostgreSQL inside `AsyncConnection.run_sync` over asyncpg). Published outbox rows are deleted
inside the next transaction rather than in one of their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_runtime.bus import BusError
from felt_runtime.db import Transactions
from felt_runtime.metrics import BATCH, TRANSFERS
from felt_wallet.ledger import Command, apply, prefetch
from felt_wallet.refills import Grants
from felt_wallet.store import OutboxRow, Work

M = TypeVar("M", bound=BaseModel)  # a result model

log = logging.getLogger("felt.wallet.writer")

Clock = Callable[[], datetime]
IDLE_DELETE_AFTER = 0.2  # seconds: published outbox rows wait this long for a batch to ride on


class Writer:
    def __init__(
        self,
        engine: AsyncEngine,
        *,
        grants: Grants,
        group_commit: bool,
        batch_max: int,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self.engine = engine
        self.grants = grants
        self.batch_max = batch_max if group_commit else 1
        self.clock = clock
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.committed = asyncio.Event()  # set after every commit that wrote outbox rows
        #: (seq, transfer id, payload) of the outbox rows committed since the relay last took them
        self.outboxed: list[OutboxRow] = []
        self.task: asyncio.Task[None] | None = None
        self.batches = 0
        self.published: list[int] = []  # outbox seqs the relay has published, to delete
        self.transactions = Transactions(engine, "wallet-writer")

    async def submit(self, req: Command, result: type[M]) -> M:
        """`req`'s outcome, of the result model its handler answers with."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((req, fut))
        out = await fut
        assert isinstance(out, result), (type(req).__name__, type(out).__name__)
        return out

    def take_outboxed(self) -> list[OutboxRow]:
        """The outbox rows committed since the last call, in seq order (the relay's feed)."""
        rows, self.outboxed = self.outboxed, []
        return rows

    def ack_outbox(self, seqs: list[int]) -> None:
        """The relay published these outbox rows: delete them with the next transaction."""
        self.published += seqs

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="wallet-writer")

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
        if self.published:
            try:
                await self._process([])  # delete what the relay already published
            except Exception:  # the rows are published again after restart (deduplicated)
                log.exception("final outbox delete failed")
        self.transactions.close()

    async def _run(self) -> None:
        while True:
            if self.published and self.queue.empty():
                try:
                    first = await asyncio.wait_for(self.queue.get(), IDLE_DELETE_AFTER)
                except TimeoutError:
                    await self._process([])  # nothing to ride on: delete the published rows alone
                    continue
            else:
                first = await self.queue.get()
            batch = [first]
            while len(batch) < self.batch_max and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            await self._process(batch)

    async def _process(self, batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        done, self.published = self.published, []
        try:
            outcomes, outboxed = await self._apply([req for req, _ in batch], done)
        except Exception as exc:  # the transaction failed as a whole
            self.published = done + self.published
            if len(batch) > 1:
                log.warning("batch of %d failed (%s); retrying one by one", len(batch), exc)
                for item in batch:
                    await self._process([item])
                return
            log.exception("command failed")
            outcomes = [exc] * len(batch)
        else:
            self.batches += 1
            BATCH.observe(len(batch))
            if outboxed:
                self.outboxed += outboxed
                self.committed.set()
        for (req, fut), out in zip(batch, outcomes, strict=True):
            TRANSFERS.labels(type(req).__name__, "refused" if isinstance(out, BaseException) else "ok").inc()
            if fut.done():
                continue
            if isinstance(out, BaseException):
                fut.set_exception(out)
            else:
                fut.set_result(out)

    async def _apply(self, batch: list[Command], outbox_done: list[int]) -> tuple[list[Any], list[OutboxRow]]:
        return await self.transactions.run(self._transaction, batch, outbox_done, self.clock())

    def _transaction(
        self, conn: Connection, batch: list[Command], outbox_done: list[int], now: datetime
    ) -> tuple[list[Any], list[OutboxRow]]:
        """The outcomes, and the outbox rows the transaction wrote."""
        w = Work(conn, now)
        w.outbox_done = outbox_done
        prefetch(w, batch)
        outcomes: list[Any] = []
        for req in batch:
            mark = w.mark()
            try:
                outcomes.append(apply(w, req, self.grants))
            except BusError as exc:
                w.rollback(mark)
                outcomes.append(exc)
        w.flush()
        return outcomes, w.outboxed
