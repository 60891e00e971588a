"""Typed calls to the services the gateway fronts (all over the bus, all raising BusError)."""

from __future__ import annotations

import asyncio
from typing import Any

from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import Join, TableRequest, TableResult, is_table_id
from felt_gateway.errors import ApiError
from felt_runtime.bus import call


def check_table_id(table_id: str) -> str:
    if not is_table_id(table_id):
        raise ApiError(ErrorCode.NOT_FOUND, f"no table {table_id[:80]!r}", table_id=table_id[:80])
    return table_id


class Bus:
    def __init__(self, broker: NatsBroker, timeout: float, *, join_slots: int = 32, join_timeout: float = 60.0) -> None:
        self.broker = broker
        self.timeout = timeout
        self.joins = asyncio.Semaphore(join_slots)  # joins queue here: a burst is served in turn
        self.join_timeout = join_timeout

    async def call(self, subject: str, request: Any, result: type, timeout: float | None = None) -> Any:
        return await call(self.broker, subject, request, result, timeout=timeout or self.timeout)

    async def table(
        self, table_id: str, command: Any, *, message_id: str | None = None, timeout: float | None = None
    ) -> TableResult:
        check_table_id(table_id)
        extra = {"message_id": message_id} if message_id else {}
        req = TableRequest(table_id=table_id, command=command, **extra)
        if not isinstance(command, Join):
            return await self.call(subjects.table_command(table_id), req, TableResult, timeout)
        async with self.joins:  # a join waits for the wallet and limits behind the others: be patient
            return await self.call(subjects.table_command(table_id), req, TableResult, timeout or self.join_timeout)
