"""A fix for nats-py 2.15–2.16, installed when felt_runtime.bus is imported.

Three timeout exits of `PullSubscription.fetch` raise a bare `asyncio.TimeoutError` instead of
the documented `nats.errors.TimeoutError` (nats-io/nats.py#1008, open). FastStream's pull
consumers catch only the documented one, so each such timeout killed the pull task: the batch it
had fetched waited `ack_wait` for redelivery, and the dead task (its exception, traceback and the
frames holding the fetched messages) stayed referenced by the subscriber while FastStream's
supervisor started another, logging only the first. Limits and chat, the two pull consumers,
grew about 10 MB an hour in a soak. Until a release has the fix, `fetch` raises the documented
error (a subclass of the builtin one, so other callers see no change).
"""

from __future__ import annotations

import functools
from typing import Any

import nats.errors
from nats.js.client import JetStreamContext

_fetch = JetStreamContext.PullSubscription.fetch


@functools.wraps(_fetch)
async def fetch(self: JetStreamContext.PullSubscription, *args: Any, **kwargs: Any) -> Any:
    try:
        return await _fetch(self, *args, **kwargs)
    except nats.errors.TimeoutError:
        raise
    except TimeoutError as exc:
        raise nats.errors.TimeoutError from exc


def install() -> None:
    JetStreamContext.PullSubscription.fetch = fetch  # type: ignore[method-assign]  # the fix above
