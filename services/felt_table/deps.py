"""What every table borrows from the process: the bus, the store, settings and the session registry."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, TypeVar

from nats.errors import NoRespondersError

from felt_contracts.base import Reply
from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError
from felt_table.settings import TableSettings
from felt_table.store import Store

T = TypeVar("T")
_JSON = {"content-type": "application/json"}


@functools.cache
def _reply_model(model: type[Any]) -> Any:
    """`Reply[model]`, built once per result model (pydantic re-derives it on each subscript)."""
    return Reply[model]  # type: ignore[valid-type]


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
        """A request to another service with the table's timeout (BusError on refusal/silence).

        Same contract as `felt_runtime.bus.call`, sent on the plain nats-py connection: the
        broker's request path (middlewares, a JSON round trip through dicts) cost more CPU per
        escrow commit than the table's own work for the step."""
        timeout = self.settings.call_timeout
        try:
            msg = await self.broker.connection.request(subject, request.model_dump_json().encode(), timeout=timeout,
                                                       headers=_JSON)
        except (TimeoutError, NoRespondersError) as exc:
            raise BusError(ErrorCode.UNAVAILABLE, f"no reply on {subject} within {timeout}s") from exc
        reply = _reply_model(model).model_validate_json(msg.data)
        if not reply.ok and reply.error is not None:
            raise BusError(reply.error.code, reply.error.message, **reply.error.details)
        return reply.result  # type: ignore[return-value]
