"""Deadlines and time banks in Redis. Every state change is one Lua script, so replicas that
share the Redis never see half a change and never claim one deadline twice.

Keys (all under one hash tag `{<prefix>}` so a Redis Cluster keeps them in one slot):
  {p}:due            sorted set: member "<owner>/<key>", score = due time (ms, Redis clock)
  {p}:dl:<member>    hash: id, owner, key, kind, payload (JSON), due (plain turn clock ms),
                     bank (bank key or ""), table_id, player_id, ext_ms (bank granted),
                     used (bank ms deducted at fire), claim (token of the replica firing it),
                     attempts
  {p}:bank:<n>:<table>:<player>   string: time-bank balance in ms (expires when unused)
  {p}:msg:<message_id>            string: idempotency record "<fingerprint>|<result>"

A due deadline is *claimed* by moving its score to now + lease and writing the claim token;
the claimer publishes, then acknowledges (deletes) it if the token is still its own. A claimer
that dies before acknowledging leaves the deadline to be claimed again after the lease: a
deadline is never lost and is delivered more than once only after such a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import NoScriptError

from felt_runtime.idempotency import fingerprint
from felt_contracts.base import Request

LUA_COMMON = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function deduct(bank, ms)
  if ms <= 0 then return end
  local bal = tonumber(redis.call('GET', bank) or '0')
  local left = bal - ms
  if left < 0 then left = 0 end
  redis.call('SET', bank, string.format('%d', left), 'KEEPTTL')
end
-- remove a deadline; a running time-bank extension is charged for the time used so far
local function remove(zkey, dl, member, now)
  local f = redis.call('HMGET', dl, 'bank', 'ext_ms', 'due', 'used')
  local used = 0
  if f[1] and f[1] ~= '' and f[2] and not f[4] then
    used = now - tonumber(f[3])
    local ext = tonumber(f[2])
    if used > ext then used = ext end
    if used < 0 then used = 0 end
    deduct(f[1], used)
  end
  redis.call('DEL', dl)
  redis.call('ZREM', zkey, member)
  return used
end
"""

SCHEDULE = (
    LUA_COMMON
    + """
local seen = redis.call('GET', KEYS[3])
if seen then return {'dup', seen} end
local now = now_ms()
local replaced = 0
if redis.call('EXISTS', KEYS[2]) == 1 then
  remove(KEYS[1], KEYS[2], ARGV[1], now)
  replaced = 1
end
local due = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'owner', ARGV[4], 'key', ARGV[5], 'kind', ARGV[6],
  'payload', ARGV[7], 'bank', ARGV[8], 'table_id', ARGV[9], 'player_id', ARGV[10],
  'due', string.format('%d', due), 'attempts', '0')
redis.call('ZADD', KEYS[1], due, ARGV[1])
if ARGV[8] ~= '' then
  redis.call('SET', ARGV[8], ARGV[11], 'NX')
  redis.call('EXPIRE', ARGV[8], ARGV[12])
end
local result = ARGV[13] .. '|' .. ARGV[2] .. '|' .. string.format('%d', due) .. '|' .. replaced
redis.call('SET', KEYS[3], result, 'EX', ARGV[14])
return {'new', result}
"""
)

CANCEL = (
    LUA_COMMON
    + """
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {0, 0}
end
local used = remove(KEYS[1], KEYS[2], ARGV[1], now_ms())
return {1, used}
"""
)

CLAIM = (
    LUA_COMMON
    + """
local now = now_ms()
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, member in ipairs(ids) do
  local dl = ARGV[1] .. ':dl:' .. member
  local f = redis.call('HMGET', dl, 'bank', 'ext_ms', 'due', 'used', 'id', 'owner', 'key', 'kind',
    'payload', 'table_id', 'player_id')
  if not f[3] then
    redis.call('ZREM', KEYS[1], member)
  else
    local due = tonumber(f[3])
    local bal = 0
    if f[1] ~= '' and not f[2] then bal = tonumber(redis.call('GET', f[1]) or '0') end
    if bal > 0 then
      -- the turn clock expired and the player has bank left: extend once by the whole balance
      redis.call('HSET', dl, 'ext_ms', string.format('%d', bal))
      redis.call('ZADD', KEYS[1], due + bal, member)
      table.insert(out, {'bank', member, f[5], f[6], f[7], f[8], f[9], f[10], f[11],
        string.format('%d', due), string.format('%d', bal), '1'})
    else
      local used = 0
      if f[4] then
        used = tonumber(f[4])
      elseif f[2] then
        used = tonumber(f[2])
        deduct(f[1], used)
        redis.call('HSET', dl, 'used', string.format('%d', used))
      end
      local attempts = redis.call('HINCRBY', dl, 'attempts', 1)
      redis.call('HSET', dl, 'claim', ARGV[4])
      redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), member)
      table.insert(out, {'fire', member, f[5], f[6], f[7], f[8], f[9], f[10], f[11],
        string.format('%d', due + used), string.format('%d', used), tostring(attempts)})
    end
  end
end
return {string.format('%d', now), out}
"""
)

ACK = """
for i = 3, #ARGV do
  local dl = ARGV[1] .. ':dl:' .. ARGV[i]
  if redis.call('HGET', dl, 'claim') == ARGV[2] then
    redis.call('DEL', dl)
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return 1
"""

REFILL = """
local seen = redis.call('GET', KEYS[1])
if seen then return {'dup', seen} end
local init, max, add, ttl = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local out = {}
for i = 7, #ARGV do
  local bal = tonumber(redis.call('GET', ARGV[i]) or tostring(init))
  bal = bal + add
  if bal > max then bal = max end
  redis.call('SET', ARGV[i], string.format('%d', bal), 'EX', ttl)
  table.insert(out, string.format('%d', bal))
end
local result = ARGV[1] .. '|' .. table.concat(out, ',')
redis.call('SET', KEYS[1], result, 'EX', ARGV[2])
return {'new', result}
"""


class IdempotencyConflict(Exception):
    """The same message_id was used before with different content."""


def ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def to_time(millis: int) -> datetime:
    return datetime.fromtimestamp(millis / 1000, UTC)


@dataclass(frozen=True)
class Scheduled:
    deadline_id: str
    due_ms: int
    replaced: bool


@dataclass(frozen=True)
class Claimed:
    """A deadline this replica claimed: to fire (`bank` False) or whose time bank just started."""

    bank: bool
    member: str
    deadline_id: str
    owner: str
    key: str
    kind: str
    payload: str
    table_id: str
    player_id: str
    due_ms: int  # fire: when it was due (turn clock + bank used); bank: the turn clock
    bank_ms: int  # fire: bank used; bank: bank granted
    attempts: int


@dataclass(frozen=True)
class Schedule:
    """What scheduling one deadline writes (`request`: its idempotency key and fingerprint)."""

    request: Request
    deadline_id: str
    owner: str
    key: str
    kind: str
    delay_ms: int
    payload_json: str
    bank: tuple[str, str, int] | None  # (table_id, player_id, initial ms)


@dataclass(frozen=True)
class PendingDeadline:
    deadline_id: str
    kind: str
    due_ms: int
    in_time_bank: bool


class TimerStore:
    def __init__(self, redis: Redis, prefix: str, *, bank_ttl_s: int, idempotency_ttl_s: int) -> None:
        self.redis = redis
        self.p = "{" + prefix + "}"
        self.due_key = f"{self.p}:due"
        self.bank_ttl_s = bank_ttl_s
        self.idempotency_ttl_s = idempotency_ttl_s
        self._schedule = redis.register_script(SCHEDULE)
        self._cancel = redis.register_script(CANCEL)
        self._claim = redis.register_script(CLAIM)
        self._ack = redis.register_script(ACK)
        self._refill = redis.register_script(REFILL)

    # --- keys
    @staticmethod
    def member(owner: str, key: str) -> str:
        return f"{owner}/{key}"

    def deadline_key(self, member: str) -> str:
        return f"{self.p}:dl:{member}"

    def bank_key(self, table_id: str, player_id: str) -> str:
        return f"{self.p}:bank:{len(table_id)}:{table_id}:{player_id}"

    def message_key(self, message_id: str) -> str:
        return f"{self.p}:msg:{message_id}"

    # --- deadlines
    async def schedule(self, s: Schedule) -> Scheduled:
        keys, args, fp = self._schedule_call(s)
        _, result = await self._schedule(keys=keys, args=args)
        return self._scheduled(s, fp, result)

    async def schedule_many(self, items: list[Schedule]) -> list[Scheduled | IdempotencyConflict]:
        """`schedule` for each item, in order, in one round trip (a pipeline, not a transaction:
        each item is its own atomic script, as when scheduled alone)."""
        calls = [self._schedule_call(s) for s in items]
        results = await self._evalsha_all(calls)
        out: list[Scheduled | IdempotencyConflict] = []
        for s, (_, _, fp), (_, result) in zip(items, calls, results, strict=True):
            try:
                out.append(self._scheduled(s, fp, result))
            except IdempotencyConflict as exc:
                out.append(exc)
        return out

    async def _evalsha_all(self, calls: list[tuple[list[str], list[str | int], str]]) -> list[Any]:
        """The schedule script for each call in one pipeline, by its hash (a pipeline of the
        script object asks Redis whether the script exists first, a round trip per batch). A
        Redis that lost its scripts (restarted, flushed) gets it loaded and the calls are sent
        again (each is idempotent by its message id)."""
        results = await self._evalsha_pipeline(calls)
        if any(isinstance(r, NoScriptError) for r in results):
            await self.redis.script_load(SCHEDULE)
            results = await self._evalsha_pipeline(calls)
        for r in results:
            if isinstance(r, Exception):
                raise r
        return results

    async def _evalsha_pipeline(self, calls: list[tuple[list[str], list[str | int], str]]) -> list[Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args, _ in calls:
                pipe.evalsha(self._schedule.sha, len(keys), *keys, *args)
            return await pipe.execute(raise_on_error=False)

    def _schedule_call(self, s: Schedule) -> tuple[list[str], list[str | int], str]:
        member = self.member(s.owner, s.key)
        fp = fingerprint(s.request)
        table_id, player_id, init_ms = s.bank if s.bank else ("", "", 0)
        bank_key = self.bank_key(table_id, player_id) if s.bank else ""
        keys = [self.due_key, self.deadline_key(member), self.message_key(s.request.message_id)]
        args: list[str | int] = [
            member,
            s.deadline_id,
            s.delay_ms,
            s.owner,
            s.key,
            s.kind,
            s.payload_json,
            bank_key,
            table_id,
            player_id,
            init_ms,
            self.bank_ttl_s,
            fp,
            self.idempotency_ttl_s,
        ]
        return keys, args, fp

    @staticmethod
    def _scheduled(s: Schedule, fp: str, result: str) -> Scheduled:
        seen_fp, dl_id, due, replaced = result.split("|")
        if seen_fp != fp:
            raise IdempotencyConflict(s.request.message_id)
        return Scheduled(dl_id, int(due), replaced == "1")

    async def cancel(self, owner: str, key: str) -> tuple[bool, int]:
        member = self.member(owner, key)
        existed, used = await self._cancel(keys=[self.due_key, self.deadline_key(member)], args=[member])
        return bool(int(existed)), int(used)

    async def get(self, owner: str, key: str) -> PendingDeadline | None:
        member = self.member(owner, key)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(self.deadline_key(member), ["id", "kind", "ext_ms", "claim"])
            pipe.zscore(self.due_key, member)
            (dl_id, kind, ext_ms, claim), score = await pipe.execute()
        if dl_id is None or score is None:
            return None
        return PendingDeadline(dl_id, kind, int(score), ext_ms is not None and claim is None)

    async def claim(self, limit: int, lease_ms: int, token: str) -> tuple[int, list[Claimed]]:
        now, rows = await self._claim(keys=[self.due_key], args=[self.p, limit, lease_ms, token])
        claimed = [
            Claimed(r[0] == "bank", r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], int(r[9]), int(r[10]), int(r[11]))
            for r in rows
        ]
        return int(now), claimed

    async def ack(self, token: str, members: list[str]) -> None:
        if members:
            await self._ack(keys=[self.due_key], args=[self.p, token, *members])

    async def next_due_ms(self) -> int | None:
        first = await self.redis.zrange(self.due_key, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    # --- time banks
    async def refill(
        self, request: Request, table_id: str, player_ids: list[str], init_ms: int, max_ms: int, add_ms: int
    ) -> dict[str, int]:
        fp = fingerprint(request)
        keys = [self.bank_key(table_id, p) for p in player_ids]
        _, result = await self._refill(
            keys=[self.message_key(request.message_id)],
            args=[fp, self.idempotency_ttl_s, init_ms, max_ms, add_ms, self.bank_ttl_s, *keys],
        )
        seen_fp, balances = result.split("|")
        if seen_fp != fp:
            raise IdempotencyConflict(request.message_id)
        return dict(zip(player_ids, (int(b) for b in balances.split(",")), strict=True))

    async def banks(self, table_id: str, player_ids: list[str]) -> dict[str, int | None]:
        values = await self.redis.mget([self.bank_key(table_id, p) for p in player_ids])
        return {p: (int(v) if v is not None else None) for p, v in zip(player_ids, values, strict=True)}
