"""Rooms limited by hands or time (the Texas Hold'em rules: "Rooms may be limited by time or by number of
hands"), and operators, hosts and idleness closing a table.

A table is due to close once it has settled `config.max_hands` hands, once `config.closes_at`
has passed, or once an operator or its host asked (or, hosted, nobody sat at it for
`idle_close_seconds`). From then on no hand is dealt and joins are refused
(`table_closed`); the hand in progress plays to its end and is settled, then every seat is
cashed out (each exactly once: `seat_sessions.close`) and `table_closed` is published. The check
runs wherever the table would schedule its next hand, and at `closes_at` (a timer deadline).
"""

from __future__ import annotations

import logging

from felt_contracts.errors import ErrorCode
from felt_contracts.deadlines import ClosesAtDeadline
from felt_runtime.bus import BusError
from felt_table.commands import recovery, seat_sessions
from felt_table.model import hosting
from felt_table.ports.retry import retryable
from felt_table.model.table import Table, now

log = logging.getLogger("felt.table.closing")


def reason(table: Table) -> str | None:
    """Why the table is (due to be) closed, or None."""
    cfg = table.config
    if table.close_requested:
        return table.close_requested
    if cfg.max_hands is not None and table.hands_played >= cfg.max_hands:
        return "max_hands"
    if cfg.closes_at is not None and now() >= cfg.closes_at:
        return "closes_at"
    return None


def refuse_if_closing(table: Table) -> None:
    """Joins and starts: refused once the table is closed or due to close."""
    why = "closed" if table.closed else reason(table)
    if why is not None:
        raise BusError(
            ErrorCode.TABLE_CLOSED, "this table is closed" if table.closed else "this table is closing", reason=why
        )


async def close_if_due(table: Table) -> bool:
    """Close now if due and no hand is running or unsettled; True once the table is closed."""
    if table.closed:
        return True
    why = reason(table)
    if why is None or table.hand_running or table.ending is not None:
        return False
    try:
        for seat in sorted(table.seats.values(), key=lambda other: other.number):
            await seat_sessions.close(table, seat, reason="table_closed")
    except BusError as exc:
        if not retryable(exc):
            raise
        recovery.ping(table, "wallet", lambda table, _: close_if_due(table))  # the rest once the wallet answers
        return False
    table.closed = True
    table.intermission.next_hand_at = None
    table.hosting.closed, table.hosting.pending = True, []
    await hosting.save(table)
    table.emit("table_closed", amount=table.hands_played, detail=why)
    return True


async def request(table: Table, why: str = "operator") -> None:
    """Close the table (`why`: operator, host, idle): now, or once the hand in progress has settled."""
    table.close_requested = table.close_requested or why
    await close_if_due(table)


async def closes_at_came(table: Table) -> None:
    """The `closes_at` deadline fired (or a day passed on the way there)."""
    if reason(table) is None:
        await schedule(table)
    else:
        await close_if_due(table)


async def schedule(table: Table) -> None:
    """At open: a time-limited table is told when `closes_at` comes (nothing else would wake it)."""
    if table.config.closes_at is not None and not table.closed:
        delay = min(86_400.0, max(0.05, (table.config.closes_at - now()).total_seconds()))  # a far one: again then
        await table.timers.schedule(ClosesAtDeadline(table_id=table.tid), delay)
