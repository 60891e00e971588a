"""Fan-out of table and chat subjects to this process's listeners.

One core-NATS subscription per subject (on the broker's own nats-py connection), however many
sockets and long-polls listen to it; a message only *wakes* listeners. What a listener then
delivers it fetches from the owner (the table's `GetEvents` with the viewer set), so every
viewer gets the table's own redaction and a gap can never appear.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from faststream.nats import NatsBroker

log = logging.getLogger("felt.gateway.hub")

Listener = Callable[[str, bytes], None]


class Hub:
    def __init__(self, broker: NatsBroker) -> None:
        self.broker = broker
        self._subs: dict[str, Any] = {}
        self._listeners: dict[str, set[Listener]] = {}
        self._lock = asyncio.Lock()

    def _client(self) -> Any:
        return self.broker.config.connection_state.connection

    async def add(self, subject: str, listener: Listener) -> None:
        async with self._lock:
            self._listeners.setdefault(subject, set()).add(listener)
            if subject not in self._subs:
                async def on_msg(msg: Any, subject: str = subject) -> None:
                    for fn in list(self._listeners.get(subject, ())):
                        try:
                            fn(subject, msg.data)
                        except Exception:  # noqa: BLE001 - one listener never breaks the others
                            log.exception("listener failed")

                self._subs[subject] = await self._client().subscribe(subject, cb=on_msg)

    async def remove(self, subject: str, listener: Listener) -> None:
        async with self._lock:
            listeners = self._listeners.get(subject)
            if listeners is None:
                return
            listeners.discard(listener)
            if not listeners:
                del self._listeners[subject]
                sub = self._subs.pop(subject, None)
                if sub is not None:
                    try:
                        await sub.unsubscribe()
                    except Exception:  # noqa: BLE001 - connection already closing
                        pass

    def subjects(self) -> int:
        return len(self._subs)


class Waker:
    """An asyncio.Event fed by hub messages: wait for 'something changed' on any subject."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.messages: list[tuple[str, bytes]] = []
        self.keep = False

    def __call__(self, subject: str, data: bytes) -> None:
        if self.keep:
            self.messages.append((subject, data))
        self.event.set()

    async def wait(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self.event.clear()
