"""The WebSocket `/ws` for people (docs/protocol.md).

One `Connection` per socket: authenticate (query `?token=` or a first `auth` frame), then read
frames — each parsed into the client union of `frames.py` — and run them in order. Each
subscribed table has a pump task fed by the process's one `Feed` of that table (hub.py): the
events the table published, in `seq` order, as this viewer may see them (public copies, and this
participant's private copies only), sent straight from memory — the public copy's frame is
serialized once for every socket. The pump asks the table (`GetEvents(after=last seq, viewer=me)`)
only when the feed cannot answer (a gap). Chat messages are forwarded as they come. Bad frames
get an `error` frame; only a flood far over the rate budget, a failed authentication or silence
closes the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from felt_contracts import subjects
from felt_contracts.base import new_id
from felt_contracts.chat import ChatMessageEvent, ChatPosted
from felt_contracts.errors import ErrorCode
from felt_contracts.table import GetView
from felt_gateway import commands, frames as F
from felt_gateway.clients import Bus
from felt_gateway.errors import ApiError
from felt_gateway.jsonio import dumps
from felt_gateway.hub import Batch, Feed, Hub, Waker, frame_text, next_events, replay
from felt_gateway.identity import Identity, Principal
from felt_gateway.chat_members import ChatMembers
from felt_gateway.presence import Presence
from felt_gateway.schemas import camel
from felt_gateway.settings import GatewaySettings
from felt_runtime.bus import BusError
from felt_runtime.logs import CORRELATION
from felt_runtime.metrics import SOCKETS

log = logging.getLogger("felt.gateway.ws")


@dataclass
class TableSub:
    table_id: str
    last_seq: int = 0
    waker: Waker = field(default_factory=Waker)
    task: asyncio.Task[None] | None = None
    chat_seen: int = 0
    feed: Feed | None = None

    def subjects(self) -> list[str]:
        return [subjects.chat_events(self.table_id)]


MAX_PEEK = 4096  # a dropped frame longer than this is answered without its requestId


class Budget:
    """lila-ws style credits: `credits` frames per `interval`, refilled continuously."""

    def __init__(self, credits: int, interval: float) -> None:
        self.capacity = float(credits)
        self.rate = credits / interval
        self.tokens = float(credits)
        self.at = time.monotonic()
        self.over = 0

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.over = 0
            return True
        self.over += 1
        return False


def _request_id(data: Any) -> str | None:
    """A frame's `requestId` (its first 64 characters), echoed on its reply or error."""
    rid = data.get("requestId") if isinstance(data, dict) else None
    return rid[:64] if isinstance(rid, str) and rid else None


def request_id_of(raw: str | bytes) -> str | None:
    """The `requestId` of a frame that is not otherwise read (one dropped over the budget)."""
    if isinstance(raw, bytes) or len(raw) > MAX_PEEK:
        return None
    try:
        return _request_id(json.loads(raw))
    except (ValueError, RecursionError):
        return None


class Connection:
    def __init__(self, ws: WebSocket) -> None:
        state = ws.app.state
        self.ws = ws
        self.gw: GatewaySettings = state.gw
        self.identity: Identity = state.identity
        self.bus: Bus = state.bus
        self.hub: Hub = state.hub
        self.presence: Presence = state.presence
        self.chat_members: ChatMembers = state.chat_members
        self.who: Principal | None = None
        self.tables: dict[str, TableSub] = {}
        self.lock = asyncio.Lock()
        self.budget = Budget(self.gw.ws_credits, self.gw.ws_credit_interval)
        self.closed = False

    # --- sending --------------------------------------------------------------------------

    async def send(self, frame: F.Frame) -> None:
        await self.send_text(dumps(frame.dump()))

    async def error(
        self,
        code: str,
        message: str,
        *,
        table_id: str | None = None,
        request_id: str | None = None,
        details: dict[str, Any] | None = None,
        **more: Any,
    ) -> None:
        """An error frame. `details` may hold any keys (a refusal's own `table_id`, say)."""
        body = json.loads(json.dumps({**(details or {}), **more}, default=str))
        await self.send(F.Error(code=code, message=message, details=body, table_id=table_id, request_id=request_id))

    async def close(self, code: int, reason: str = "") -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                await self.ws.close(code, reason)

    # --- lifecycle ------------------------------------------------------------------------

    async def run(self) -> None:
        await self.ws.accept()
        try:
            if not await self.authenticate():
                return
            assert self.who is not None  # authenticate() set it
            await self.send(
                F.Hello(
                    participant_id=self.who.participant_id,
                    owner_id=self.who.owner_id,
                    kind=self.who.kind,
                    max_frame_bytes=self.gw.ws_max_frame_bytes,
                    credits=self.gw.ws_credits,
                    credit_interval=self.gw.ws_credit_interval,
                )
            )
            await self.read_loop()
        except WebSocketDisconnect:
            pass
        finally:
            self.closed = True
            for table_id in list(self.tables):
                await self.drop(table_id)

    async def receive_text(self, timeout: float) -> str | bytes | None:
        """The next frame's text (bytes for a binary frame); None when the socket closed."""
        async with asyncio.timeout(timeout):
            msg = await self.ws.receive()
        if msg["type"] == "websocket.disconnect":
            return None
        if msg.get("text") is not None:
            return msg["text"]
        return msg.get("bytes") or b""

    async def authenticate(self) -> bool:
        token = self.ws.query_params.get("token")
        if not token:
            try:
                raw = await self.receive_text(self.gw.ws_auth_timeout)
            except TimeoutError:
                await self.close(F.CLOSE_AUTH_FAILED, "no auth frame in time")
                return False
            if raw is None:
                return False
            frame = self.parse_quiet(raw)
            if not isinstance(frame, F.Auth):
                await self.error(ErrorCode.UNAUTHORIZED, 'the first frame must be {"type":"auth","token":...}')
                await self.close(F.CLOSE_AUTH_FAILED, "authentication required")
                return False
            token = frame.token
        try:
            if len(token) > 200:
                raise ApiError(ErrorCode.UNAUTHORIZED, "credentials not recognised")
            self.who = await self.identity.authenticate(token)
        except ApiError as exc:
            await self.error(exc.code, exc.message)
            await self.close(F.CLOSE_AUTH_FAILED, "authentication failed")
            return False
        except BusError:
            await self.close(1011, "dependency unavailable")
            return False
        return True

    def parse_quiet(self, raw: str | bytes) -> F.Frame | None:
        if isinstance(raw, bytes) or len(raw.encode()) > self.gw.ws_max_frame_bytes:
            return None
        try:
            return F.CLIENT.validate_json(raw)
        except ValidationError:
            return None

    async def read_loop(self) -> None:
        while not self.closed:
            try:
                raw = await self.receive_text(self.gw.ws_idle_timeout)
            except TimeoutError:
                await self.close(F.CLOSE_IDLE, "idle")
                return
            if raw is None:
                return
            if not self.budget.take():
                if self.budget.over > self.gw.ws_credits:
                    await self.close(F.CLOSE_FLOOD, "flood")
                    return
                # every dropped frame is answered (a client waiting on its reply must not hang);
                # the flood close above bounds how many answers a flood gets
                await self.error(
                    ErrorCode.THROTTLED,
                    "too many frames; slow down",
                    request_id=request_id_of(raw),
                    retry_after=round(1 / self.budget.rate, 3),
                )
                continue
            frame = await self.parse(raw)
            if frame is not None:
                await self.handle(frame)

    async def parse(self, raw: str | bytes) -> F.Frame | None:
        if isinstance(raw, bytes):
            await self.error(ErrorCode.MALFORMED, "binary frames are not accepted; send JSON text")
            return None
        size = len(raw.encode())
        if size > self.gw.ws_max_frame_bytes:
            await self.error(
                ErrorCode.MALFORMED, "frame too large", reason="too_large", size=size, max=self.gw.ws_max_frame_bytes
            )
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            await self.error(ErrorCode.MALFORMED, "frame is not JSON", reason="not_json")
            return None
        request_id = _request_id(data)
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            await self.error(
                ErrorCode.MALFORMED,
                "a frame is a JSON object with a string `type`",
                reason="no_type",
                request_id=request_id,
            )
            return None
        if data["type"] not in F.CLIENT_TYPES:
            await self.error(
                ErrorCode.MALFORMED,
                f"unknown frame type {data['type'][:40]!r}",
                reason="unknown_type",
                known=list(F.CLIENT_TYPES),
                request_id=request_id,
            )
            return None
        try:
            return F.CLIENT.validate_python(data)
        except ValidationError as exc:
            errors = [{"loc": [str(p) for p in e["loc"]], "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
            await self.error(
                ErrorCode.VALIDATION, f"invalid {data['type']} frame", errors=errors, request_id=request_id
            )
            return None

    # --- frames ---------------------------------------------------------------------------

    async def handle(self, frame: F.Frame) -> None:
        who = self.who
        assert who is not None
        table_id = getattr(frame, "table_id", None)
        request_id = getattr(frame, "request_id", None)
        CORRELATION.set(new_id())  # one action: its bus calls and their log lines share this id
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "frame %s", type(frame).__name__, extra={"table_id": table_id, "participant_id": who.participant_id}
            )
        try:
            if isinstance(frame, F.Ping):
                await self.send(F.Pong(t=frame.t))
            elif isinstance(frame, F.Auth):
                await self.error(ErrorCode.CONFLICT, "already authenticated")
            elif isinstance(frame, F.Subscribe):
                await self.subscribe(frame)
            elif isinstance(frame, F.Unsubscribe):
                await self.drop(frame.table_id)
                await self.send(F.Unsubscribed(table_id=frame.table_id, request_id=request_id))
            elif isinstance(frame, F.ChatFrame):
                posted: ChatPosted = await self.bus.call(
                    subjects.CHAT_POST, commands.chat_post(who, frame.table_id, frame.text, request_id), ChatPosted
                )
                await self.send(
                    F.Result(
                        command="chat",
                        table_id=frame.table_id,
                        status="ok",
                        seq=posted.message.seq,
                        request_id=request_id,
                    )
                )
            else:
                command: Any
                if isinstance(frame, F.ActFrame):
                    command = commands.act(
                        who,
                        frame.action.type,
                        frame.action.amount,
                        frame.action.cards,
                        frame.hand_id,
                        frame.turn_id,
                        with_view=False,  # the socket's result frame carries no table: events do
                    )
                elif isinstance(frame, F.CommandFrame):
                    command = commands.command(who, frame.type, **frame.fields())
                else:  # pragma: no cover - the union is closed
                    raise ApiError(ErrorCode.MALFORMED, "unsupported frame")
                message_id = commands.message_id(who, frame.type, request_id, socket=True)
                result = await self.bus.table(frame.table_id, command, message_id=message_id)
                await self.send(
                    F.Result(
                        command=frame.type,
                        table_id=frame.table_id,
                        status=result.status,
                        seq=result.seq,
                        seat=result.seat,
                        buy_in=result.buy_in,
                        request_id=request_id,
                    )
                )
        except BusError as exc:
            await self.error(exc.code.value, exc.message, table_id=table_id, request_id=request_id, details=exc.details)
        except ApiError as exc:
            await self.error(exc.code, exc.message, table_id=table_id, request_id=request_id, details=exc.details)
        except ValidationError as exc:
            await self.error(
                ErrorCode.VALIDATION, "invalid command", table_id=table_id, request_id=request_id, errors=str(exc)[:500]
            )

    # --- table subscriptions --------------------------------------------------------------

    async def subscribe(self, frame: F.Subscribe) -> None:
        who = self.who
        assert who is not None
        tid = frame.table_id
        if tid in self.tables:
            await self.drop(tid)
        if len(self.tables) >= self.gw.ws_max_tables:
            raise ApiError(
                ErrorCode.CONFLICT, f"at most {self.gw.ws_max_tables} tables per connection", reason="too_many_tables"
            )
        sub = TableSub(tid)
        sub.waker.keep = True
        self.tables[tid] = sub
        try:
            sub.feed = await self.hub.watch(tid, sub.waker.event)  # subscribed before anything is fetched
            for s in sub.subjects():
                await self.hub.add(s, sub.waker)
            replayed = await self.resync(sub, frame.last_seq)
        except BaseException:
            await self.drop(tid, presence=False, linger=False)
            raise
        # counted present before the client hears `subscribed`: a socket it then closes elsewhere
        # must not look like its last one (tests/scale/test_two_gateways.py)
        await self.presence.opened(tid, who.participant_id)
        await self.chat_members.subscribed(tid, who.participant_id)  # a watcher may chat once told `subscribed`
        await self.send(F.Subscribed(table_id=tid, seq=sub.last_seq, replayed=replayed, request_id=frame.request_id))
        sub.task = asyncio.create_task(self.pump(sub), name=f"ws-pump-{tid}")

    async def resync(self, sub: TableSub, last_seq: int | None) -> int:
        """Replay events after `last_seq` (from the feed when it still holds them all, else from
        the table when it does); otherwise a snapshot."""
        assert self.who is not None and sub.feed is not None
        me = self.who.participant_id
        if last_seq is not None and (batch := await replay(sub.feed, self.bus, me, last_seq)) is not None:
            sub.last_seq = last_seq
            await self.send_batch(sub, batch)
            return len(batch.events)
        view = (await self.bus.table(sub.table_id, GetView(viewer=me))).view
        assert view is not None
        sub.last_seq = view.seq
        sub.feed.prime(view.seq)
        await self.send(F.Snapshot(table_id=sub.table_id, seq=view.seq, table=camel(view)))
        return 0

    async def send_batch(self, sub: TableSub, batch: Batch) -> None:
        for e in batch.events:
            if e.seq <= sub.last_seq:
                continue
            sub.last_seq = e.seq
            await self.send_text(
                e.item.frame(sub.table_id) if e.item is not None else frame_text(sub.table_id, e.seq, e.event)
            )
        sub.last_seq = max(sub.last_seq, batch.last)

    async def send_text(self, data: str) -> None:
        if self.closed:
            return
        async with self.lock:
            try:
                await self.ws.send_text(data)
            except (WebSocketDisconnect, RuntimeError, OSError):
                self.closed = True

    async def pump(self, sub: TableSub) -> None:
        assert self.who is not None
        try:
            while not self.closed:
                sub.waker.event.clear()
                messages, sub.waker.messages = sub.waker.messages, []
                for _subject, data in messages:  # chat: the only raw subject of a table sub
                    await self.forward_chat(sub, data)
                await self.catch_up(sub)
                await sub.waker.event.wait()
        except asyncio.CancelledError:
            raise
        except Exception:  # one table's pump never takes the connection down
            log.exception("pump failed", extra={"table_id": sub.table_id})
            await self.error(
                ErrorCode.UNAVAILABLE, "table feed interrupted; subscribe again with lastSeq", table_id=sub.table_id
            )

    async def catch_up(self, sub: TableSub) -> None:
        """Send what the feed has after `last_seq`; ask the table only for a gap."""
        assert self.who is not None and sub.feed is not None
        while not self.closed:
            try:
                batch = await next_events(sub.feed, self.bus, self.who.participant_id, sub.last_seq, 500)
            except BusError as exc:
                await self.error(
                    exc.code.value, "could not fetch table events; they will follow", table_id=sub.table_id
                )
                await asyncio.sleep(0.5)
                sub.waker.event.set()
                return
            await self.send_batch(sub, batch)
            if batch.behind:  # the table is not yet where the feed is (or the feed is wrong): let it settle
                await asyncio.sleep(0.2)
            elif not batch.more:
                return

    async def forward_chat(self, sub: TableSub, data: bytes) -> None:
        try:
            event = ChatMessageEvent.model_validate_json(data)
        except ValidationError:
            return
        if event.message.seq <= sub.chat_seen:
            return
        sub.chat_seen = event.message.seq
        await self.send(F.ChatMessageFrame(table_id=sub.table_id, message=camel(event.message)))

    async def drop(self, table_id: str, *, presence: bool = True, linger: bool = True) -> None:
        sub = self.tables.pop(table_id, None)
        if sub is None or self.who is None:
            return
        if sub.task is not None:
            sub.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sub.task
        for s in sub.subjects():
            await self.hub.remove(s, sub.waker)
        if sub.feed is not None:
            self.hub.unwatch(sub.feed, sub.waker.event, linger=linger)
        if presence and sub.task is not None:
            pid = self.who.participant_id
            await self.presence.closed(table_id, pid)
            if not await self.presence.watching(table_id, pid):
                await self.chat_members.unsubscribed(table_id, pid)


async def endpoint(ws: WebSocket) -> None:
    conn = Connection(ws)
    ws.app.state.connections.add(conn)
    SOCKETS.inc()
    try:
        await conn.run()
    finally:
        SOCKETS.dec()
        ws.app.state.connections.discard(conn)
        if ws.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await ws.close()
