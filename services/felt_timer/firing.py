"""The firing loop: every poll, claim the due deadlines, publish them, acknowledge them.

Claiming is one Lua script (see store.py), so among several replicas exactly one gets each due
deadline. The claimer publishes `TimerFired` to `subjects.timer_fired(owner)`, flushes the NATS
connection, and only then acknowledges (deletes) the deadline: a crash in between leaves it to be
fired again after the lease (at-least-once; `event_id` is the same, so the owner can drop it).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from faststream.nats import NatsBroker
from redis.exceptions import RedisError

from felt_contracts import subjects
from felt_contracts.base import new_id
from felt_contracts.timer import DeadlineKind, TimeBankStarted, TimerFired
from felt_client.backoff import Backoff
from felt_timer.store import Claimed, TimerStore, to_time

log = logging.getLogger("felt.timer.firing")


class Firer:
    def __init__(self, store: TimerStore, broker: NatsBroker, *, poll: float, batch: int, lease: float) -> None:
        self.store = store
        self.broker = broker
        self.poll = poll
        self.after_failure = Backoff(first=2 * poll, cap=2.0)  # the wait after failed rounds in a row
        self.batch = batch
        self.lease_ms = int(lease * 1000)
        self.connection: Any = None  # the nats-py client, for flush()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.connection = await self.broker.connect()
        self._task = asyncio.create_task(self._run(), name="felt-timer-firing")

    async def stop(self) -> None:
        """Finish the current round (publish + acknowledge), then stop."""
        self._stopping.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=5)
        except TimeoutError:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                count = await self.tick()
                failures = 0
            except (RedisError, OSError, TimeoutError) as exc:
                failures += 1
                count = 0
                log.warning("firing round failed", extra={"error": f"{type(exc).__name__}: {exc}"[:300]})
            except Exception:  # a bug must not stop every deadline
                failures += 1
                count = 0
                log.exception("firing round crashed")
            if count >= self.batch:
                continue  # more are due: go again at once
            delay = self.after_failure.delay(failures) if failures else self.poll
            try:
                await asyncio.wait_for(self._stopping.wait(), timeout=delay)
            except TimeoutError:
                pass

    async def tick(self) -> int:
        """One round: claim, publish, acknowledge. Returns how many deadlines were claimed."""
        token = new_id()
        now_ms, claimed = await self.store.claim(self.batch, self.lease_ms, token)
        if not claimed:
            return 0
        fired: list[str] = []
        for item in claimed:
            try:
                if item.bank:
                    await self._publish_bank_started(item)
                else:
                    await self._publish_fired(item, now_ms)
                    fired.append(item.member)
            except Exception:  # not acknowledged: retried after the lease
                log.exception("publish failed", extra={"deadline_id": item.deadline_id})
        if fired:
            if self.connection is not None:
                await self.connection.flush(timeout=5)
            await self.store.ack(token, fired)
        return len(claimed)

    async def _publish_fired(self, item: Claimed, now_ms: int) -> None:
        event = TimerFired(
            event_id=item.deadline_id,
            deadline_id=item.deadline_id,
            owner=item.owner,
            key=item.key,
            kind=DeadlineKind(item.kind),
            payload=json.loads(item.payload),
            due_at=to_time(item.due_ms),
            fired_at=to_time(now_ms),
            time_bank_used_seconds=item.bank_ms / 1000,
            attempt=item.attempts,
        )
        await self.broker.publish(event.model_dump(mode="json"), subjects.timer_fired(item.owner))
        log.info(
            "fired",
            extra={
                "deadline_id": item.deadline_id,
                "key": item.key,
                "owner": item.owner,
                "late_ms": now_ms - item.due_ms,
                "attempt": item.attempts,
            },
        )

    async def _publish_bank_started(self, item: Claimed) -> None:
        """Best effort: if this is lost in a crash the deadline still fires at the extended time."""
        event = TimeBankStarted(
            event_id=f"{item.deadline_id}:bank",
            deadline_id=item.deadline_id,
            owner=item.owner,
            key=item.key,
            payload=json.loads(item.payload),
            table_id=item.table_id,
            player_id=item.player_id,
            bank_seconds=item.bank_ms / 1000,
            turn_due_at=to_time(item.due_ms),
            due_at=to_time(item.due_ms + item.bank_ms),
        )
        await self.broker.publish(event.model_dump(mode="json"), subjects.timer_bank_started(item.owner))
        log.info("time bank started", extra={"deadline_id": item.deadline_id, "bank_ms": item.bank_ms})
