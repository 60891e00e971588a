"""Redis (or Valkey) client factory."""

from redis.asyncio import BlockingConnectionPool, Redis

#: connections one process keeps to Valkey (redis-py's default pool size). Valkey runs commands
#: one at a time, so more connections add no throughput, only sockets.
POOL_SIZE = 100
#: how long a command waits for a free connection before it fails (ConnectionError)
POOL_WAIT_SECONDS = 10.0


def make_redis(url: str, pool_size: int = POOL_SIZE) -> Redis:
    """A client whose commands wait for a free connection when all `pool_size` are busy. The
    default pool raises `MaxConnectionsError` instead, and a busy gateway has more requests holding
    a connection at once than the pool has connections: those actions would be answered 500. A
    burst is queued and served, as the room does with every other burst."""
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=pool_size,
        timeout=POOL_WAIT_SECONDS,
        decode_responses=True,
        socket_connect_timeout=3,
        health_check_interval=30,
    )
    return Redis.from_pool(pool)
