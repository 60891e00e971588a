"""Retrying a request a service did not answer: which refusals mean "no answer (yet)", and
sending the same request until it is answered, waiting as `felt_client.backoff.Backoff` says."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from felt_contracts.errors import ErrorCode
from felt_client.backoff import Backoff
from felt_runtime.bus import BusError

T = TypeVar("T")

#: codes that mean "no answer (yet)": the same request is sent again, never a new one
RETRY_CODES = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL})


def retryable(exc: BaseException) -> bool:
    return isinstance(exc, BusError) and exc.code in RETRY_CODES


async def until_answered(attempt: Callable[[], Awaitable[T]], backoff: Backoff, *, wait_first: bool = False) -> T:
    """Send the same request until the service answers: its result, or its refusal (`BusError`)."""
    delays = backoff.delays()
    if wait_first:
        await asyncio.sleep(next(delays))
    while True:
        try:
            return await attempt()
        except BusError as exc:
            if not retryable(exc):
                raise
        await asyncio.sleep(next(delays))
