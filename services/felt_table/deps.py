"""What every table borrows from the process: the bus, the store, settings and the session registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from felt_runtime.bus import call
from felt_table.settings import TableSettings
from felt_table.store import Store

T = TypeVar("T")


@dataclass
class Registry:
    """Process-wide: a participant has at most one active table session."""

    active: dict[str, str]


@dataclass
class Deps:
    broker: Any
    store: Store
    settings: TableSettings
    registry: Registry
    last_seq: int = 0

    async def ask(self, subject: str, request: Any, model: type[T]) -> T:
        """A request to another service with the table's timeout (BusError on refusal/silence)."""
        return await call(self.broker, subject, request, model, timeout=self.settings.call_timeout)
