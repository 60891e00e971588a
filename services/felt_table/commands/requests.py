"""Requests to sit at an approval table: kept (with the join they will become) until the host
approves or declines them; no chips move before the approval."""

from __future__ import annotations

from felt_contracts.errors import ErrorCode
from felt_contracts.table import Join, TableResult
from felt_runtime.bus import BusError
from felt_table.model import hosting
from felt_table.model.table import Table


async def ask(table: Table, command: Join) -> TableResult:
    """A join at an approval table: a request for the host (asking again changes nothing)."""
    if table.hosting.pending_of(command.participant_id) is None:
        table.hosting.pending.append(command)
        table.emit("seat_requested", participant_id=command.participant_id, name=command.name)
        await hosting.save(table)
    return table.result("pending")


async def take(table: Table, pid: str | None) -> Join:
    """The request of `pid`, taken out of the waiting list (not_found if there is none)."""
    request = table.hosting.pending_of(pid) if pid is not None else None
    if request is None:
        raise BusError(ErrorCode.NOT_FOUND, "no request to sit from this participant", field="participantId")
    table.hosting.pending.remove(request)
    await hosting.save(table)
    return request
