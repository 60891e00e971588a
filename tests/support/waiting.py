"""The two moves most tests make, written once: poll until the room reaches a state (events reach
services asynchronously, through JetStream, so a test waits for the state instead of sleeping a
fixed time), and assert that a request is refused with a stable error code."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from felt_runtime.bus import BusError

T = TypeVar("T")


async def eventually(
    probe: Callable[[], Awaitable[T]],
    ok: Callable[[T], bool] = bool,
    *,
    timeout: float = 20.0,
    every: float = 0.05,
    what: str = "",
) -> T:
    """Call `probe` until `ok(result)` (by default: until it is truthy); fails naming the last
    result once `timeout` seconds passed."""
    deadline = time.monotonic() + timeout
    while True:
        current = await probe()
        if ok(current):
            return current
        if time.monotonic() > deadline:
            raise AssertionError(f"{what or 'state'} never matched in {timeout}s: {current!r}")
        await asyncio.sleep(every)


async def refused(request: Awaitable[Any], code: Any = None) -> BusError:
    """Await a bus request that must be refused; with `code`, the refusal's code must be it."""
    with pytest.raises(BusError) as err:
        await request
    if code is not None:
        assert err.value.code == code, err.value
    return err.value
