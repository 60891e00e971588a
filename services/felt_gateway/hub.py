"""What this gateway process hears on the bus, fanned out in memory to its listeners.

- `Feed`: one per watched table, one core-NATS subscription (`felt.evt.table.<id>.>`: the
  table's public subject and every participant's private subject) on the broker's own nats-py
  connection, however many sockets and long-polls watch the table. It keeps the table's last
  numbered events in order (`base + 1 .. top`, at most `keep`), each with its public copy and
  any private copies, kept as their JSON text: a dict per copy would make every kept event several
  objects for the garbage collector to walk, and its full collections of a busy gateway's heap
  would stop every request in flight. Which participant has a private copy of a seq is the table's mark (the
  `PRIVATE_COPY` header, felt_contracts.table): the feed knows no event kinds. A listener reads what *it* may see after its own `seq` straight from
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
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from faststream.nats import NatsBroker
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.table import PRIVATE_COPY, GetEvents, TableEvent
from felt_gateway import frames as F
from felt_gateway.clients import Bus
from felt_gateway.jsonio import dumps
from felt_gateway.schemas import camel

log = logging.getLogger("felt.gateway.hub")

Listener = Callable[[str, bytes], None]

LINGER = 30.0  # seconds a feed stays subscribed after its last listener left (long-poll loops)
MAX_IDLE = 256  # feeds lingering without listeners, at most


def event_json(ev: TableEvent) -> str:
    """An event as clients get it (camelCase), serialized once. Text, not orjson's bytes: those
    keep orjson's whole write buffer (kilobytes for a 600-byte event), a gigabyte across a busy
    gateway's feeds."""
    return dumps(camel(ev))


@dataclass(slots=True)
class Item:
    """One seq of a table: its `kind`, its public copy (None for a private-only event) and
    private copies, each as JSON text (invisible to the garbage collector); `copy_for` reads its
    private copy instead of the public one (the table's mark)."""

    seq: int
    kind: str
    public: str | None
    copy_for: str | None = None
    private: dict[str, str] | None = None
    _frame: str | None = None

    def frame(self, table_id: str) -> str:
        """The public copy as a ready `event` frame (serialized once for every socket)."""
        if self._frame is None:
            assert self.public is not None
            self._frame = frame_text(table_id, self.seq, self.public)
        return self._frame

    def mine(self, viewer: str) -> str | None:
        return None if self.private is None else self.private.get(viewer)


def frame_text(table_id: str, seq: int, event: str) -> str:
    frame = F.EventFrame(table_id=table_id, seq=seq, event={}).dump()
    frame["event"] = orjson.Fragment(event)
    return dumps(frame)


@dataclass(slots=True)
class Entry:
    """A client's event, ready to send: `event` as the viewer sees it (JSON), `private` = the
    viewer's own copy, `item` = the feed item when it is its shared public copy (whose frame is
    serialized once for every socket)."""

    seq: int
    kind: str
    event: str
    private: bool
    item: Item | None = None


@dataclass(slots=True)
class Read:
    """What a viewer may see after `after`: `entries`, `last` = the seq the viewer is now
    complete up to, `fetch` = ask the table after `last`, `more` = stopped at the limit."""

    entries: list[Entry]
    last: int
    fetch: bool = False
    more: bool = False


class Feed:
    def __init__(self, table_id: str, keep: int) -> None:
        """`keep`: events kept (`FELT_GATEWAY_FEED_KEEP_EVENTS`); a listener further behind asks the table."""
        self.table_id = table_id
        self.keep = keep
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
        self.receive(msg.subject, msg.data, (msg.headers or {}).get(PRIVATE_COPY))

    def receive(self, subject: str, data: bytes, copy_for: str | None = None) -> None:
        """One message of the table's subjects; `copy_for`: its `PRIVATE_COPY` header."""
        if subject == self.public_subject:
            to = None
        elif subject.startswith(self.private_prefix):
            to = subject[len(self.private_prefix) :]
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
        if self.base is None:
            self.base = n - 1
        if n <= self.base:
            return  # older than the feed: readers get it from the table
        top = self.base + len(self.items)
        if n <= top:
            item = self.items[n - self.base - 1]
            if to is not None and item.public is not None:
                if item.copy_for != to:
                    log.warning(
                        "private copy of a public event without one expected",
                        extra={"table_id": self.table_id, "seq": n, "kind": ev.kind},
                    )
                if item.private is None:
                    item.private = {}
                item.private[to] = event_json(ev)
                self.notify()
            return
        if n > top + 1:  # missed messages: whoever is behind n - 1 asks the table
            self.gaps += 1
            log.info("table feed gap", extra={"table_id": self.table_id, "after": top, "seq": n, "gaps": self.gaps})
            self.items.clear()
            self.base = n - 1
        if to is None:
            item = Item(n, ev.kind, event_json(ev), copy_for)
        elif copy_for is not None:  # the public copy of this seq was missed
            self.gaps += 1
            log.info(
                "table feed gap (private copy without its public one)", extra={"table_id": self.table_id, "seq": n}
            )
            self.items.clear()
            self.base = n
            self.notify()
            return
        else:  # private-only (preaction, auto_rebuy): invisible to everyone else
            item = Item(n, ev.kind, None, None, {to: event_json(ev)})
        self.items.append(item)
        if len(self.items) > self.keep:
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
        out: list[Entry] = []
        last = after
        start = after - self.base
        items = self.items
        for i in range(start, len(items)):
            item = items[i]
            mine = item.mine(viewer)
            if mine is not None:
                out.append(Entry(item.seq, item.kind, mine, True))
            elif item.copy_for == viewer:
                if i == len(items) - 1:
                    break  # its private copy is on its way
                return Read(out, last, fetch=True)  # ... and never came
            elif item.public is not None:
                out.append(Entry(item.seq, item.kind, item.public, False, item))
            last = item.seq
            if len(out) >= limit:
                return Read(out, last, more=i < len(items) - 1)
        return Read(out, last)


# --- the one reader of a table for a viewer: the feed, else the table ------------------------


@dataclass(slots=True)
class Batch:
    """What `next_events` found: `events`, `last` = the seq the viewer is complete up to, `more`
    = ask again at once, `behind` = the table is not yet where the feed is (ask again shortly),
    `asked` = the table answered (it exists)."""

    events: list[Entry]
    last: int
    more: bool = False
    behind: bool = False
    asked: bool = False


def _table_entries(events: Sequence[TableEvent]) -> list[Entry]:
    return [Entry(ev.seq, ev.kind, event_json(ev), ev.private) for ev in events]


async def next_events(feed: Feed, bus: Bus, viewer: str, after: int, limit: int) -> Batch:
    """The next events `viewer` may see after `after`, for long-polls and sockets alike: from the
    feed's memory while it reaches back to `after`, else from the table (`GetEvents`, its own
    redaction), which also tells the feed from where it may answer."""
    read = feed.read(viewer, after, limit)
    if read.entries or not read.fetch:
        return Batch(read.entries, read.last, more=read.more or (read.fetch and bool(read.entries)))
    result = await bus.table(feed.table_id, GetEvents(after_seq=read.last, viewer=viewer, limit=limit))
    complete = len(result.events) < limit
    last = max(read.last, result.seq) if complete else result.events[-1].seq
    if complete:
        feed.prime(result.seq)
    behind = not result.events and feed.read(viewer, last, 1).fetch
    return Batch(_table_entries(result.events), last, more=not behind, behind=behind, asked=True)


#: the most events a reconnect replays; further behind, it gets a snapshot
REPLAY = 5000


async def replay(feed: Feed, bus: Bus, viewer: str, last_seq: int) -> Batch | None:
    """Every event after a reconnect's `last_seq` (from memory when the feed holds them all, else
    from the table when it has them all), or None: the client needs a snapshot instead."""
    if feed.covers(last_seq):
        read = feed.read(viewer, last_seq, REPLAY)
        if not read.fetch and not read.more:
            return Batch(read.entries, read.last)
    result = await bus.table(feed.table_id, GetEvents(after_seq=last_seq, viewer=viewer, limit=REPLAY))
    events = result.events
    contiguous = events[0].seq == last_seq + 1 and events[-1].seq >= result.seq if events else result.seq == last_seq
    if not contiguous:
        return None
    feed.prime(result.seq)
    return Batch(_table_entries(events), max(last_seq, result.seq), asked=True)


class Hub:
    def __init__(self, broker: NatsBroker, keep: int, linger: float = LINGER) -> None:
        self.broker = broker
        self.linger = linger
        self.keep = keep
        self._subs: dict[str, Any] = {}
        self._listeners: dict[str, set[Listener]] = {}
        self._feeds: dict[str, Feed] = {}
        self._lock = asyncio.Lock()
        self.stopping = False  # the gateway stops: long-polls answer with what they have

    def stop(self) -> None:
        """The server stops: wake every waiting reader (each sees `stopping` and answers)."""
        self.stopping = True
        for feed in self._feeds.values():
            feed.notify()

    def _client(self) -> Any:
        return self.broker.config.connection_state.connection

    # --- table feeds ----------------------------------------------------------------------

    async def watch(self, table_id: str, wake: asyncio.Event) -> Feed:
        """The table's feed (subscribed before this returns), waking `wake` on every change."""
        async with self._lock:
            feed = self._feeds.get(table_id)
            if feed is None:
                feed = Feed(table_id, self.keep)
                feed.sub = await self._client().subscribe(feed.wildcard, cb=feed.on_msg)
                self._feeds[table_id] = feed
            if feed.linger is not None:
                feed.linger.cancel()
                feed.linger = None
            feed.watchers.add(wake)
            return feed

    def unwatch(self, feed: Feed, wake: asyncio.Event, *, linger: bool = True) -> None:
        """`linger=False` (the watch failed: no such table, say): close at once, so that
        subscribing to unknown tables in a loop holds no subscriptions. At most `MAX_IDLE`
        feeds linger; beyond that the one idle longest closes at once."""
        feed.watchers.discard(wake)
        if feed.watchers or self._feeds.get(feed.table_id) is not feed:
            return
        loop = asyncio.get_running_loop()
        if not linger:
            if feed.linger is not None:
                feed.linger.cancel()
            feed.linger = None
            loop.create_task(self._close(feed))
            return
        if feed.linger is None:
            feed.linger = loop.call_later(self.linger, lambda: loop.create_task(self._close(feed)))
            idle = [(f, f.linger) for f in self._feeds.values() if f.linger is not None]
            if len(idle) > MAX_IDLE:
                oldest, timer = min(idle, key=lambda pair: pair[1].when())
                timer.cancel()
                oldest.linger = None
                loop.create_task(self._close(oldest))

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
                        except Exception:  # one listener never breaks the others
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
            async with asyncio.timeout(timeout):
                await self.event.wait()
            return True
        except TimeoutError:
            return False
        finally:
            self.event.clear()
