"""What this gateway process hears on the bus, fanned out in memory to its listeners.

- `Feed`: one per watched table, one core-NATS subscription (`felt.evt.table.<id>.>`: the
  table's public subject and every participant's private subject) on the broker's own nats-py
  connection, however many sockets and long-polls watch the table. It keeps the table's last
  numbered events in order (`base + 1 .. top`, at most `KEEP`), each with its public copy and
  any private copies. A listener reads what *it* may see after its own `seq` straight from
  memory: public copies for everyone, a participant's private copy only for that participant.
  Nothing is fetched from the table while the feed is contiguous with the listener.
- A listener goes back to the table (`GetEvents`, the table's own redaction) only when the feed
  cannot answer: its `seq` is older than what the feed holds (a reconnect with an old
  `lastSeq`, a feed that just started), the feed missed a message (a `seq` jumped, or a private
  copy arrived without its public one), or a participant's own private copy did not follow its
  public event.
- `Hub.add/remove`: the same one-subscription fan-out for other subjects (chat), which only
  wakes listeners with the raw message.

Privacy: the table never puts private cards in a public copy, and a private copy received on
`...private.<participant>` is only ever handed to a reader whose viewer is that participant —
the same guarantee as the table's `GetEvents(viewer=...)`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from faststream.nats import NatsBroker
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.table import TableEvent
from felt_gateway import frames as F
from felt_gateway.schemas import camel

log = logging.getLogger("felt.gateway.hub")

Listener = Callable[[str, bytes], None]

#: public events whose participant also gets a private copy with the same seq (felt_contracts.table:
#: own hole cards, own draw, the legal actions on their turn). That participant reads the private
#: copy instead of the public one.
COMPANION_KINDS = frozenset({"deal_hole", "draw", "turn"})
KEEP = 2048  # events kept per table feed (a listener further behind asks the table)
LINGER = 30.0  # seconds a feed stays subscribed after its last listener left (long-poll loops)


@dataclass(slots=True)
class Item:
    """One seq of a table: its public copy (None for a private-only event) and private copies."""

    seq: int
    public: dict[str, Any] | None
    participant_id: str | None = None
    companion: bool = False  # `participant_id` gets a private copy of this seq
    private: dict[str, dict[str, Any]] = field(default_factory=dict)
    _frame: str | None = None

    def frame(self, table_id: str) -> str:
        """The public copy as a ready `event` frame (serialized once for every socket)."""
        if self._frame is None:
            assert self.public is not None
            self._frame = frame_text(table_id, self.seq, self.public)
        return self._frame


def frame_text(table_id: str, seq: int, event: dict[str, Any]) -> str:
    return json.dumps(F.EventFrame(table_id=table_id, seq=seq, event=event).dump(), separators=(",", ":"))


@dataclass(slots=True)
class Read:
    """What a viewer may see after `after`: `entries` (item, event for this viewer, shared?),
    `last` = the seq the viewer is now complete up to, `fetch` = ask the table after `last`,
    `more` = stopped at the limit."""

    entries: list[tuple[Item, dict[str, Any], bool]]
    last: int
    fetch: bool = False
    more: bool = False


class Feed:
    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        public = subjects.table_public_events(table_id)
        self.public_subject = public
        self.private_prefix = subjects.table_seat_events(table_id, "")
        self.wildcard = public.rsplit(".", 1)[0] + ".>"
        self.base: int | None = None  # events <= base: ask the table; None: nothing known yet
        self.items: deque[Item] = deque()
        self.watchers: set[asyncio.Event] = set()
        self.sub: Any = None
        self.linger: asyncio.TimerHandle | None = None
        self.gaps = 0  # times the feed missed messages

    @property
    def top(self) -> int | None:
        return None if self.base is None else self.base + len(self.items)

    def notify(self) -> None:
        for w in self.watchers:
            w.set()

    # --- input ----------------------------------------------------------------------------

    async def on_msg(self, msg: Any) -> None:
        self.receive(msg.subject, msg.data)

    def receive(self, subject: str, data: bytes) -> None:
        if subject == self.public_subject:
            to = None
        elif subject.startswith(self.private_prefix):
            to = subject[len(self.private_prefix):]
        else:
            return
        try:
            ev = TableEvent.model_validate_json(data)
        except ValidationError:
            log.warning("unreadable table event", extra={"table_id": self.table_id})
            return
        if ev.table_id != self.table_id:
            return
        n = ev.seq
        companion_kind = ev.kind in COMPANION_KINDS and ev.participant_id is not None
        if self.base is None:
            self.base = n - 1
        if n <= self.base:
            return  # older than the feed: readers get it from the table
        top = self.base + len(self.items)
        if n <= top:
            item = self.items[n - self.base - 1]
            if to is not None and item.public is not None:
                if not item.companion:
                    log.warning("private copy of a public event without one expected",
                                extra={"table_id": self.table_id, "seq": n, "kind": ev.kind})
                item.private[to] = camel(ev)
                self.notify()
            return
        if n > top + 1:  # missed messages: whoever is behind n - 1 asks the table
            self.gaps += 1
            log.info("table feed gap", extra={"table_id": self.table_id, "after": top, "seq": n, "gaps": self.gaps})
            self.items.clear()
            self.base = n - 1
        if to is None:
            item = Item(n, camel(ev), ev.participant_id, companion_kind)
        elif companion_kind:  # the public copy of this seq was missed
            self.gaps += 1
            log.info("table feed gap (private copy without its public one)", extra={"table_id": self.table_id, "seq": n})
            self.items.clear()
            self.base = n
            self.notify()
            return
        else:  # private-only (preaction, auto_rebuy): invisible to everyone else
            item = Item(n, None, to, False, {to: camel(ev)})
        self.items.append(item)
        if len(self.items) > KEEP:
            self.items.popleft()
            self.base += 1
        self.notify()

    def prime(self, seq: int) -> None:
        """The table said its events up to `seq` are stored (a fetch made after this feed
        subscribed): readers at `seq` or later can be served from memory from now on."""
        if self.base is None:
            self.base = seq

    # --- output ---------------------------------------------------------------------------

    def covers(self, after: int) -> bool:
        return self.base is not None and self.base <= after <= self.base + len(self.items)

    def read(self, viewer: str, after: int, limit: int = 500) -> Read:
        """Events after `after` as `viewer` may see them, from memory."""
        if self.base is None or after < self.base:
            return Read([], after, fetch=True)
        out: list[tuple[Item, dict[str, Any], bool]] = []
        last = after
        start = after - self.base
        items = self.items
        for i in range(start, len(items)):
            item = items[i]
            mine = item.private.get(viewer)
            if mine is not None:
                out.append((item, mine, False))
            elif item.companion and item.participant_id == viewer:
                if i == len(items) - 1:
                    break  # its private copy is on its way
                return Read(out, last, fetch=True)  # ... and never came
            elif item.public is not None:
                if item.participant_id == viewer:  # the table's own-event id for the actor
                    out.append((item, dict(item.public, eventId=f"{item.public['eventId']}:{viewer}"), False))
                else:
                    out.append((item, item.public, True))
            last = item.seq
            if len(out) >= limit:
                return Read(out, last, more=i < len(items) - 1)
        return Read(out, last)


class Hub:
    def __init__(self, broker: NatsBroker, linger: float = LINGER) -> None:
        self.broker = broker
        self.linger = linger
        self._subs: dict[str, Any] = {}
        self._listeners: dict[str, set[Listener]] = {}
        self._feeds: dict[str, Feed] = {}
        self._lock = asyncio.Lock()

    def _client(self) -> Any:
        return self.broker.config.connection_state.connection

    # --- table feeds ----------------------------------------------------------------------

    async def watch(self, table_id: str, wake: asyncio.Event) -> Feed:
        """The table's feed (subscribed before this returns), waking `wake` on every change."""
        async with self._lock:
            feed = self._feeds.get(table_id)
            if feed is None:
                feed = Feed(table_id)
                feed.sub = await self._client().subscribe(feed.wildcard, cb=feed.on_msg)
                self._feeds[table_id] = feed
            if feed.linger is not None:
                feed.linger.cancel()
                feed.linger = None
            feed.watchers.add(wake)
            return feed

    def unwatch(self, feed: Feed, wake: asyncio.Event) -> None:
        feed.watchers.discard(wake)
        if not feed.watchers and feed.linger is None and self._feeds.get(feed.table_id) is feed:
            loop = asyncio.get_running_loop()
            feed.linger = loop.call_later(self.linger, lambda: loop.create_task(self._close(feed)))

    async def _close(self, feed: Feed) -> None:
        async with self._lock:
            feed.linger = None
            if feed.watchers or self._feeds.get(feed.table_id) is not feed:
                return
            del self._feeds[feed.table_id]
            try:
                await feed.sub.unsubscribe()
            except Exception:  # noqa: BLE001 - connection already closing
                pass

    def feeds(self) -> int:
        return len(self._feeds)

    # --- raw subjects (chat) ----------------------------------------------------------------

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
