"""Exponential backoff, the one way Felt waits before trying again.

The agent client between HTTP attempts (`felt_client.Retry`, jittered, honouring `Retry-After`),
a table waiting for the wallet, limits or timer to answer (`felt_table.ports.retry`), the
timer's firing loop after a failed round, and `felt up`'s supervisor restarting a crashed
service all wait `first`, then twice that after each further failure, never more than `cap`: a
service that is away is noticed within `cap` of its return, and one that keeps failing does not
spin. It lives in the client package because the client installs alone (httpx and pydantic
only) and the room depends on the client, never the other way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """`first * 2**(failures - 1)` seconds after `failures` failures in a row, at most `cap`."""

    first: float
    cap: float

    def delay(self, failures: int) -> float:
        """The wait after `failures` (1 or more) failures in a row."""
        return min(self.cap, self.first * 2 ** min(max(0, failures - 1), 64))  # 2**64: past any cap

    def delays(self) -> Iterator[float]:
        """The waits after the first, second, ... failure, without end."""
        failures = 1
        while True:
            yield self.delay(failures)
            failures += 1
