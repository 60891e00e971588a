"""The group-commit writer: one asyncio task owns every write to the wallet database.

Commands queue up; the task takes up to `batch_max` of them, applies each to one in-memory
view of one transaction (a refused command is undone alone and gets its own error), commits
once, and only then replies to every caller. With `group_commit` off, every command gets a
transaction of its own (the naive baseline; same code, batch size 1). If a whole batch fails
at commit, its commands are retried one per transaction so one bad apple cannot sink the rest.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_runtime.bus import BusError
from felt_wallet.ledger import Command, apply, prefetch
from felt_wallet.store import Work

log = logging.getLogger("felt.wallet.writer")

Clock = Callable[[], datetime]


class _OutboxAck:
    """Relay -> writer: these outbox rows are published; delete them."""

    def __init__(self, seqs: list[int]) -> None:
        self.seqs = seqs


class Writer:
    def __init__(self, engine: AsyncEngine, *, grant: int, group_commit: bool, batch_max: int,
                 clock: Clock = lambda: datetime.now(UTC)) -> None:
        self.engine = engine
        self.grant = grant
        self.batch_max = batch_max if group_commit else 1
        self.clock = clock
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.committed = asyncio.Event()  # set after every commit that wrote outbox rows
        self.task: asyncio.Task[None] | None = None
        self.batches = 0

    async def submit(self, req: Command) -> BaseModel:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((req, fut))
        return await fut

    async def ack_outbox(self, seqs: list[int]) -> None:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((_OutboxAck(seqs), fut))
        await fut

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="wallet-writer")

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass

    async def _run(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < self.batch_max and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            await self._process(batch)

    async def _process(self, batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        try:
            outcomes = await self._apply([req for req, _ in batch])
        except Exception as exc:  # the transaction failed as a whole
            if len(batch) > 1:
                log.warning("batch of %d failed (%s); retrying one by one", len(batch), exc)
                for item in batch:
                    await self._process([item])
                return
            log.exception("command failed")
            outcomes = [exc]
        self.batches += 1
        self.committed.set()
        for (_, fut), out in zip(batch, outcomes, strict=True):
            if fut.done():
                continue
            if isinstance(out, BaseException):
                fut.set_exception(out)
            else:
                fut.set_result(out)

    async def _apply(self, batch: list[Any]) -> list[Any]:
        async with self.engine.begin() as conn:
            w = Work(conn, self.clock())
            commands = [r for r in batch if not isinstance(r, _OutboxAck)]
            await prefetch(w, commands)
            outcomes: list[Any] = []
            for req in batch:
                if isinstance(req, _OutboxAck):
                    w.outbox_done += req.seqs
                    outcomes.append(None)
                    continue
                mark = w.mark()
                try:
                    outcomes.append(await apply(w, req, self.grant))
                except BusError as exc:
                    w.rollback(mark)
                    outcomes.append(exc)
            await w.flush()
        return outcomes
