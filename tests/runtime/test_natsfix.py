"""nats-py 2.16's `PullSubscription.fetch` raises a bare TimeoutError when its deadline runs out
after the server said "no messages" (nats-io/nats.py#1008); FastStream's pull consumers catch
only nats.errors.TimeoutError, so that timeout killed their pull task. felt_runtime.natsfix makes
fetch raise the documented error. The branch (js/client.py line 1295 in 2.16.0, the line in the
soak's traceback) is reached on purpose: an empty consumer answers the fetch's no-wait probe
"no messages" at once, and the time left is made spent."""

from __future__ import annotations

import uuid

import nats
import nats.errors
import pytest
from nats.js.client import JetStreamContext

import felt_runtime.bus  # noqa: F401 - installs the fix, as every service does


async def test_an_exhausted_fetch_deadline_raises_the_documented_timeout(nats_url: str, monkeypatch) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    name = f"FIX{uuid.uuid4().hex[:8]}"
    try:
        await js.add_stream(name=name, subjects=[f"{name}.>"])
        sub = await js.pull_subscribe(f"{name}.x", durable="probe", stream=name)
        monkeypatch.setattr(JetStreamContext, "_time_until", staticmethod(lambda timeout, start: 0.0))
        for _ in range(3):
            with pytest.raises(nats.errors.TimeoutError):
                await sub.fetch(batch=5, timeout=None)
    finally:
        await js.delete_stream(name)
        await nc.close()
