"""TLS to PostgreSQL, Valkey and NATS is a URL or a setting away (docs/operations.md, "TLS"):
`sslmode=verify-full` (libpq's spelling) and `rediss://` are accepted and really ask for TLS —
the servers of the tests speak none, so the connection is refused where a plain one works."""

from __future__ import annotations

import pytest
import redis.exceptions
from sqlalchemy import text

from felt_runtime.db import create_engine
from felt_runtime.nats_access import tls_context
from felt_runtime.redis import make_redis
from felt_runtime.settings import Settings


def test_libpq_sslmode_becomes_the_drivers_ssl() -> None:
    url = Settings(database_url="postgresql://felt:pw@db.internal:5432/felt?sslmode=verify-full").database_url
    assert url == "postgresql+asyncpg://felt:pw@db.internal:5432/felt?ssl=verify-full"


async def test_verify_full_refuses_a_server_without_a_verified_certificate(postgres) -> None:
    if postgres is None:
        pytest.skip("FELT_TEST_POSTGRES_URL is not set (CI sets it to the local PostgreSQL)")
    base = postgres.base.render_as_string(hide_password=False)
    for mode, works in (("disable", True), ("verify-full", False)):
        engine = create_engine(Settings(database_url=f"{base}?sslmode={mode}").database_url)
        try:
            async with engine.connect() as conn:
                assert works and await conn.scalar(text("SELECT 1")) == 1
        except Exception as exc:  # noqa: BLE001 - any refusal of the connection is what verify-full must do
            assert not works, f"{mode}: {exc}"
        finally:
            await engine.dispose()


async def test_rediss_speaks_tls(redis_url: str) -> None:
    assert Settings(redis_url=redis_url.replace("redis://", "rediss://")).redis_url.startswith("rediss://")
    plain = make_redis(redis_url)
    assert await plain.ping()
    await plain.aclose()
    secure = make_redis(redis_url.replace("redis://", "rediss://"))
    with pytest.raises((redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):  # no TLS handshake
        await secure.ping()
    await secure.aclose()


def test_nats_tls_verifies_the_server_with_the_configured_ca() -> None:
    assert tls_context(Settings(nats_url="nats://nats:4222")) is None
    context = tls_context(Settings(nats_url="tls://nats:4222"))
    assert context is not None and context.check_hostname and context.verify_mode.name == "CERT_REQUIRED"
