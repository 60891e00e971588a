"""Chat state in Redis. A post is one Lua script (idempotency, membership, throttle, sequence
number, history, idempotency record), so concurrent retries and replicas never store a message
twice or let a participant past the throttle.

Keys (all under one hash tag `{<prefix>}` so a Redis Cluster keeps a script's keys in one slot):
  {p}:seats:<table_id>       hash participant -> "<seq>:s" (seated) or "<seq>:l" (left), from the
                             table's seat events; field " reset" = the seq that last emptied every
                             seat. An event older than what a field (or the reset) says is ignored,
                             so redelivered or reordered events never undo a later one
  {p}:watching:<table_id>    sorted set participant -> until when they watch (ms, Redis clock;
                             +inf: until ChatLeave)
  {p}:history:<table_id>     list of message JSON, newest first, LTRIM-capped (default 100)
  {p}:seq:<table_id>         counter: the last message `seq` of the table
  {p}:rate:<participant_id>  sorted set: one member per accepted post, score = time (ms, Redis
                             clock); a sliding-window log, expires with the window
  {p}:post:<digest>          string "<fingerprint>|<message JSON>": the first result of a post,
                             digest = sha256(participant_id, message_id); expires (default 1 h)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from redis.asyncio import Redis

from felt_runtime.idempotency import fingerprint
from felt_contracts.base import Request
from felt_contracts.chat import ChatMessage

# KEYS: post record, seats, rate, seq, history, watching
# ARGV: participant, fingerprint, message JSON without seq, max messages, window ms,
#       history size, record ttl s, rate member
POST = """
local seen = redis.call('GET', KEYS[1])
if seen then return {'dup', seen} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local seat = redis.call('HGET', KEYS[2], ARGV[1])
if not (seat and string.sub(seat, -1) == 's') then
  local until_ms = redis.call('ZSCORE', KEYS[6], ARGV[1])
  if not until_ms or tonumber(until_ms) <= now then return {'forbidden', ''} end
end
local window = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then
  local oldest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) + window - now
  if wait < 1 then wait = 1 end
  return {'throttled', string.format('%d', wait)}
end
redis.call('ZADD', KEYS[3], now, ARGV[8])
redis.call('PEXPIRE', KEYS[3], window)
local seq = redis.call('INCR', KEYS[4])
local body = '{"seq":' .. string.format('%d', seq) .. ',' .. string.sub(ARGV[3], 2)
redis.call('LPUSH', KEYS[5], body)
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[6]) - 1)
redis.call('SET', KEYS[1], ARGV[2] .. '|' .. body, 'EX', tonumber(ARGV[7]))
return {'new', body}
"""


# KEYS: seats. ARGV: participant, seq, "s" (sat down) or "l" (stood up). 1: applied, 0: older.
SEAT = """
local seq = tonumber(ARGV[2])
if seq <= tonumber(redis.call('HGET', KEYS[1], ' reset') or '0') then return 0 end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and tonumber(string.match(cur, '^(%d+)')) >= seq then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
return 1
"""

# KEYS: seats. ARGV: seq. Every seat older than `seq` is empty.
EMPTY = """
local seq = tonumber(ARGV[1])
if seq <= tonumber(redis.call('HGET', KEYS[1], ' reset') or '0') then return 0 end
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if fields[i] ~= ' reset' and tonumber(string.match(fields[i + 1], '^(%d+)')) < seq then
    redis.call('HDEL', KEYS[1], fields[i])
  end
end
redis.call('HSET', KEYS[1], ' reset', ARGV[1])
return 1
"""

# KEYS: watching. ARGV: participant, ttl ms ("inf": until ChatLeave). 1: newly watching.
WATCH = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local until_ms = ARGV[2] == 'inf' and '+inf' or tostring(now + tonumber(ARGV[2]))
local new = redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and 1 or 0
redis.call('ZADD', KEYS[1], 'GT', until_ms, ARGV[1])
return new
"""


class Forbidden(Exception):
    """The participant is not a member (seated or watching) of the table."""


class Throttled(Exception):
    def __init__(self, retry_after_ms: int) -> None:
        super().__init__(retry_after_ms)
        self.retry_after_ms = retry_after_ms


class IdempotencyConflict(Exception):
    """The same participant used the message_id before for a different post."""


@dataclass(frozen=True)
class Stored:
    message: ChatMessage
    duplicate: bool


class ChatStore:
    def __init__(
        self, redis: Redis, prefix: str, *, max_messages: int, window_ms: int, history_size: int, record_ttl_s: int
    ) -> None:
        self.redis = redis
        self.p = "{" + prefix + "}"
        self.max_messages = max_messages
        self.window_ms = window_ms
        self.history_size = history_size
        self.record_ttl_s = record_ttl_s
        self._post = redis.register_script(POST)
        self._seat = redis.register_script(SEAT)
        self._empty = redis.register_script(EMPTY)
        self._watch = redis.register_script(WATCH)

    def _seats(self, table_id: str) -> str:
        return f"{self.p}:seats:{table_id}"

    def _watching(self, table_id: str) -> str:
        return f"{self.p}:watching:{table_id}"

    def _history(self, table_id: str) -> str:
        return f"{self.p}:history:{table_id}"

    async def post(self, request: Request, participant_id: str, table_id: str, message: dict[str, str]) -> Stored:
        """Store `message` (a ChatMessage without `seq`) unless it is a retry; raises Forbidden,
        Throttled or IdempotencyConflict."""
        digest = hashlib.sha256(f"{participant_id}\0{request.message_id}".encode()).hexdigest()[:40]
        fp = fingerprint(request)
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        status, value = await self._post(
            keys=[
                f"{self.p}:post:{digest}",
                self._seats(table_id),
                f"{self.p}:rate:{participant_id}",
                f"{self.p}:seq:{table_id}",
                self._history(table_id),
                self._watching(table_id),
            ],
            args=[
                participant_id,
                fp,
                body,
                self.max_messages,
                self.window_ms,
                self.history_size,
                self.record_ttl_s,
                message["id"],
            ],
        )
        if status == "forbidden":
            raise Forbidden()
        if status == "throttled":
            raise Throttled(int(value))
        if status == "dup":
            first_fp, _, value = value.partition("|")
            if first_fp != fp:
                raise IdempotencyConflict()
        return Stored(ChatMessage.model_validate_json(value), duplicate=status == "dup")

    async def history(self, table_id: str) -> list[ChatMessage]:
        """Every kept message of the table, oldest first."""
        raw = await self.redis.lrange(self._history(table_id), 0, -1)
        return [ChatMessage.model_validate_json(item) for item in reversed(raw)]

    async def seat(self, table_id: str, participant_id: str, seq: int, *, seated: bool) -> bool:
        """A seat event of the table (event `seq`); False when a later one was applied already."""
        return bool(await self._seat(keys=[self._seats(table_id)], args=[participant_id, seq, "s" if seated else "l"]))

    async def empty(self, table_id: str, seq: int) -> bool:
        """Every seat taken before event `seq` is empty (a reset or a closed table)."""
        return bool(await self._empty(keys=[self._seats(table_id)], args=[seq]))

    async def join(self, table_id: str, participant_id: str, ttl_seconds: float | None) -> bool:
        """Watching (for `ttl_seconds`, None: until `leave`); True when newly watching."""
        ttl = "inf" if ttl_seconds is None else max(1, round(ttl_seconds * 1000))
        return bool(await self._watch(keys=[self._watching(table_id)], args=[participant_id, ttl]))

    async def leave(self, table_id: str, participant_id: str) -> bool:
        return bool(await self.redis.zrem(self._watching(table_id), participant_id))
