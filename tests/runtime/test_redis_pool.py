"""A burst of Valkey commands larger than the connection pool waits for connections and is
served (felt_runtime.redis): redis-py's default pool failed the commands over its size with
`MaxConnectionsError`, which the gateway answered with 500 under 1,200 players."""

from __future__ import annotations

import asyncio
import uuid

from felt_runtime.redis import make_redis


async def test_more_commands_at_once_than_the_pool_holds_all_succeed(redis_url: str) -> None:
    client = make_redis(redis_url, pool_size=4)
    key = f"pool-test:{uuid.uuid4().hex}"
    try:
        # each BLPOP holds its connection for its whole timeout: 20 at once need 5 rounds of 4
        results = await asyncio.gather(*(client.blpop([f"{key}:{i}"], timeout=0.2) for i in range(20)))
        assert results == [None] * 20
        assert await client.set(key, "served") and await client.get(key) == "served"
    finally:
        await client.delete(key)
        await client.aclose()
