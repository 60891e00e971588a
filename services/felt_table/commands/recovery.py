"""When the wallet, limits or timer does not answer: the table waits for it with exponential
backoff (capped, so it notices the service's return within about a second), shows itself paused
(`paused` / `resumed` events, `TableView.paused`), logs one line when it starts waiting and one
when it resumes, and deals nothing meanwhile. After the wallet was away, each seat's stack is
brought back to the wallet's reserve (the ledger is right; a difference is logged as an error).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from felt_contracts import subjects
from felt_contracts.health import HealthRequest, HealthStatus
from felt_runtime.bus import BusError
from felt_table.model.table import Do, Table
from felt_table.ports.retry import retryable, until_answered

log = logging.getLogger("felt.table.recovery")


def paused(t: Table) -> str | None:
    """What the table waits for, as shown in its view (None: it is not waiting)."""
    return "waiting for the " + ", ".join(sorted(t.waiting)) if t.waiting else None


def wait_for(
    t: Table,
    service: str,
    attempt: Callable[[], Awaitable[Any]],
    then: Callable[[Table, Any, BusError | None], Awaitable[None]],
) -> None:
    """`attempt` got no answer: retry it in the background; `then(t, result, refusal)` runs in
    the table's queue once `service` answered. The table is paused until every such retry of
    the service is answered."""
    if not t.waiting.get(service):
        t.emit("paused", detail=f"waiting for the {service}")
        log.warning("table paused: waiting for the %s", service, extra={"table_id": t.tid})
    t.waiting[service] = t.waiting.get(service, 0) + 1

    async def run() -> None:
        try:
            result, refusal = await until_answered(attempt, t.backoff, wait_first=True), None
        except BusError as exc:
            result, refusal = None, exc
        t.post(Do(lambda t: _answered(t, service, then, result, refusal)))

    task = asyncio.create_task(run(), name=f"table-{t.tid}-wait-{service}")
    t.background.add(task)
    task.add_done_callback(t.background.discard)


async def _answered(
    t: Table,
    service: str,
    then: Callable[[Table, Any, BusError | None], Awaitable[None]],
    result: Any,
    refusal: BusError | None,
) -> None:
    t.waiting[service] -= 1
    if service == "wallet":  # it was away: the stacks follow its reserves before the next deal
        t.needs_reconcile = True
    if not t.waiting[service]:
        del t.waiting[service]
        t.emit("resumed", detail=f"the {service} answers")
        log.warning("table resumed: the %s answers", service, extra={"table_id": t.tid})
    await then(t, result, refusal)


def ping(t: Table, service: str, then: Callable[[Table, str], Awaitable[object]]) -> None:
    """Wait for `service` by its health subject (no request of ours is outstanding there)."""
    if service in t.pinging:
        return
    t.pinging.add(service)

    async def health() -> HealthStatus:
        return await t.deps.ask(subjects.health(service), HealthRequest(), HealthStatus)

    async def back(t: Table, _: Any, __: BusError | None) -> None:
        t.pinging.discard(service)
        await then(t, service)

    wait_for(t, service, health, back)


async def reconcile(t: Table) -> bool:
    """Set every seat's stack to its reserve at the wallet (the ledger's figure wins; a
    difference is an error in the log and a `stack_reconciled` event). False if the wallet
    did not answer (the table then waits for it)."""
    if t.balance_plays:  # no reserves: the available balance is read before every deal
        t.needs_reconcile = False
        return True
    # a seat in the running hand: its stack is settled by the hand
    seats = [s for s in t.seats.values() if s.session_id is not None and not (t.hand_running and t.played(s))]
    answers = await asyncio.gather(*(t.wallet.balance(s.pid) for s in seats), return_exceptions=True)
    for s, bal in zip(seats, answers):
        if isinstance(bal, BaseException):
            if not isinstance(bal, BusError):
                raise bal
            if retryable(bal):
                return False
            continue
        reserve = bal.reserves.get(t.tid, 0)
        if reserve != s.stack:
            log.error(
                "stack differs from the wallet's reserve: the ledger wins",
                extra={"table_id": t.tid, "participant_id": s.pid, "stack": s.stack, "reserve": reserve},
            )
            t.emit("stack_reconciled", seat=s.seat, participant_id=s.pid, amount=reserve, detail=f"was {s.stack}")
            s.stack = reserve
    t.needs_reconcile = False
    return True
