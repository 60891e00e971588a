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


def paused(table: Table) -> str | None:
    """What the table waits for, as shown in its view (None: it is not waiting)."""
    if table.waits.requests:
        return "waiting for the " + ", ".join(sorted(table.waits.requests))
    if table.hosting.paused:
        return "paused by the host"
    return "held by the host" if table.hosting.held and not table.hosting.go else None


def wait_for(
    table: Table,
    service: str,
    attempt: Callable[[], Awaitable[Any]],
    then: Callable[[Table, Any, BusError | None], Awaitable[None]],
) -> None:
    """`attempt` got no answer: retry it in the background; `then(t, result, refusal)` runs in
    the table's queue once `service` answered. The table is paused until every such retry of
    the service is answered."""
    if not table.waits.requests.get(service):
        table.emit("paused", detail=f"waiting for the {service}")
        log.warning("table paused: waiting for the %s", service, extra={"table_id": table.tid})
    table.waits.requests[service] = table.waits.requests.get(service, 0) + 1

    async def run() -> None:
        try:
            result, refusal = await until_answered(attempt, table.backoff, wait_first=True), None
        except BusError as exc:
            result, refusal = None, exc
        table.post(Do(lambda table: _answered(table, service, then, result, refusal)))

    task = asyncio.create_task(run(), name=f"table-{table.tid}-wait-{service}")
    table.background.add(task)
    task.add_done_callback(table.background.discard)


async def _answered(
    table: Table,
    service: str,
    then: Callable[[Table, Any, BusError | None], Awaitable[None]],
    result: Any,
    refusal: BusError | None,
) -> None:
    table.waits.requests[service] -= 1
    if service == "wallet":  # it was away: the stacks follow its reserves before the next deal
        table.needs_reconcile = True
    if not table.waits.requests[service]:
        del table.waits.requests[service]
        table.emit("resumed", detail=f"the {service} answers")
        log.warning("table resumed: the %s answers", service, extra={"table_id": table.tid})
    await then(table, result, refusal)


def ping(table: Table, service: str, then: Callable[[Table, str], Awaitable[object]]) -> None:
    """Wait for `service` by its health subject (no request of ours is outstanding there)."""
    if service in table.waits.pinging:
        return
    table.waits.pinging.add(service)

    async def health() -> HealthStatus:
        return await table.deps.ask(subjects.health(service), HealthRequest(), HealthStatus)

    async def back(table: Table, _: Any, __: BusError | None) -> None:
        table.waits.pinging.discard(service)
        await then(table, service)

    wait_for(table, service, health, back)


async def reconcile(table: Table) -> bool:
    """Set every seat's stack to its reserve at the wallet (the ledger's figure wins; a
    difference is an error in the log and a `stack_reconciled` event). False if the wallet
    did not answer (the table then waits for it)."""
    if table.balance_plays:  # no reserves: the available balance is read before every deal
        table.needs_reconcile = False
        return True
    # a seat in the running hand: its stack is settled by the hand
    seats = [
        seat
        for seat in table.seats.values()
        if seat.session_id is not None and not (table.hand_running and table.played(seat))
    ]
    answers = await asyncio.gather(*(table.wallet.balance(seat.pid) for seat in seats), return_exceptions=True)
    for seat, bal in zip(seats, answers):
        if isinstance(bal, BaseException):
            if not isinstance(bal, BusError):
                raise bal
            if retryable(bal):
                return False
            continue
        reserve = bal.reserves.get(table.tid, 0)
        if reserve != seat.stack:
            log.error(
                "stack differs from the wallet's reserve: the ledger wins",
                extra={"table_id": table.tid, "participant_id": seat.pid, "stack": seat.stack, "reserve": reserve},
            )
            table.emit(
                "stack_reconciled",
                seat=seat.number,
                participant_id=seat.pid,
                amount=reserve,
                detail=f"was {seat.stack}",
            )
            seat.stack = reserve
    table.needs_reconcile = False
    return True
