"""What every table borrows from the process: the bus, the store, settings, the session registry
and the turn clocks."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from felt_runtime.bus import call
from felt_table.ports.registry import SessionRegistry
from felt_table.settings import TableSettings
from felt_table.ports.store import Store
from felt_table.ports.turn_clocks import TurnClocks

T = TypeVar("T", bound=BaseModel)


@dataclass
class Deps:
    broker: Any
    store: Store
    settings: TableSettings
    registry: SessionRegistry  # one active session per participant, across replicas
    clocks: TurnClocks  # every table's turn deadlines, batched to the timer
    last_seq: int = 0
    lease: Callable[[], int] | None = None  # tables over replicas: the table's fencing token

    async def ask(self, subject: str, request: Any, model: type[T]) -> T:
        """A request to another service with the table's timeout (BusError on refusal/silence);
        a wallet command carries the table's lease, so a replica that lost it moves no chip."""
        if self.lease is not None and "lease" in type(request).model_fields:
            request = request.model_copy(update={"lease": self.lease()})
        return await call(self.broker, subject, request, model, timeout=self.settings.call_timeout)
