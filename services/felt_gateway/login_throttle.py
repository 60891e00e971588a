"""Password guessing is throttled: login attempts are counted in Redis per email and per client
address over a fixed window. The count goes up *before* the password is checked (so parallel
guesses cannot slip past it) and a success takes its own attempt back (the email's count is
cleared, the address's decremented: a shared address is not punished for good logins). Over
either limit: 429 `throttled`, `details.reason = "login_throttled"`, `Retry-After` = the
window's remaining seconds. Redis down: logins are not throttled (logged), never refused.
"""

from __future__ import annotations

import hashlib
import logging

from redis.asyncio import Redis
from redis.exceptions import RedisError

from felt_contracts.errors import ErrorCode
from felt_gateway.errors import ApiError

log = logging.getLogger("felt.gateway.login")


class LoginThrottle:
    def __init__(self, redis: Redis, *, per_email: int, per_address: int, window: int) -> None:
        self.redis = redis
        self.limits = {"email": per_email, "address": per_address}
        self.window = window

    @staticmethod
    def _key(what: str, value: str) -> str:
        return f"felt:gw:login:{what}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"

    def _keys(self, email: str, address: str) -> dict[str, str]:
        return {"email": self._key("email", email.strip().lower()), "address": self._key("address", address)}

    async def attempt(self, email: str, address: str) -> None:
        """Count one attempt; raise `throttled` when it is over a limit."""
        keys = self._keys(email, address)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                for key in keys.values():
                    pipe.incr(key)
                    pipe.expire(key, self.window, nx=True)
                    pipe.ttl(key)
                replies = await pipe.execute()
        except RedisError as exc:
            log.warning("login throttle unavailable", extra={"error": type(exc).__name__})
            return
        for i, what in enumerate(keys):
            count, ttl = int(replies[3 * i]), int(replies[3 * i + 2])
            if count > self.limits[what]:
                retry_after = max(1, ttl if ttl > 0 else self.window)
                raise ApiError(
                    ErrorCode.THROTTLED,
                    "too many login attempts; try again later",
                    reason="login_throttled",
                    retry_after=retry_after,
                )

    async def succeeded(self, email: str, address: str) -> None:
        keys = self._keys(email, address)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.delete(keys["email"])
                pipe.decr(keys["address"])
                await pipe.execute()
        except RedisError as exc:
            log.warning("login throttle unavailable", extra={"error": type(exc).__name__})
