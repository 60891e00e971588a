"""`Idempotency-Key` for actions: the first outcome is kept in Redis for an hour, keyed by
participant and key; a retry returns it, the same key with a different body is a conflict.

A key is claimed with SET NX before the action runs, so two concurrent retries cannot both
reach the table; a claim whose request never finished expires after a minute. Outcomes that
say "try again" (503 unavailable) are not kept.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis

from felt_contracts.errors import ErrorCode
from felt_gateway.errors import ApiError

PENDING = "pending"
KEY_MAX_LENGTH = 200  # characters of an `Idempotency-Key`
CLAIM_SECONDS = 60


class Outcome:
    def __init__(self, status: int, body: Any, replayed: bool = False) -> None:
        self.status = status
        self.body = body
        self.replayed = replayed


class Idempotency:
    def __init__(self, redis: Redis, ttl: int) -> None:
        self.redis = redis
        self.ttl = ttl

    @staticmethod
    def _key(participant_id: str, key: str) -> str:
        return f"felt:gw:idem:{participant_id}:{hashlib.sha256(key.encode()).hexdigest()}"

    async def run(
        self, participant_id: str, key: str | None, fp: str, work: Callable[[], Awaitable[Outcome]]
    ) -> Outcome:
        if not key:
            return await work()
        if len(key) > KEY_MAX_LENGTH:
            raise ApiError(ErrorCode.MALFORMED, f"Idempotency-Key is longer than {KEY_MAX_LENGTH} characters", 400)
        rkey = self._key(participant_id, key)
        claimed = await self.redis.set(rkey, json.dumps({"state": PENDING, "fp": fp}), nx=True, ex=CLAIM_SECONDS)
        if not claimed:
            raw = await self.redis.get(rkey)
            if raw is None:  # expired between the two calls: treat as new
                return await self.run(participant_id, key, fp, work)
            stored = json.loads(raw)
            if stored["fp"] != fp:
                raise ApiError(
                    ErrorCode.CONFLICT,
                    "this Idempotency-Key was used for a different request",
                    409,
                    reason="idempotency_key_reused",
                )
            if stored["state"] == PENDING:
                raise ApiError(
                    ErrorCode.CONFLICT,
                    "a request with this Idempotency-Key is still in progress",
                    409,
                    reason="in_progress",
                )
            return Outcome(stored["status"], stored["body"], replayed=True)
        try:
            outcome = await work()
        except BaseException:
            await self.redis.delete(rkey)
            raise
        if outcome.status == 503:
            await self.redis.delete(rkey)
        else:
            await self.redis.set(
                rkey,
                json.dumps({"state": "done", "fp": fp, "status": outcome.status, "body": outcome.body}),
                ex=self.ttl,
            )
        return outcome
