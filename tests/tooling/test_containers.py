"""testcontainers is installed (a dev dependency) so the container fallback of the test servers
is real where a Docker engine answers; here none does, so it must stay unused and harmless: the
embedded servers win, and asking for a container skips with the reason instead of failing."""

from __future__ import annotations

import importlib.metadata

import pytest

from tests.support import servers


def test_testcontainers_is_installed() -> None:
    assert importlib.metadata.version("testcontainers").startswith("4.")
    from testcontainers.core.container import DockerContainer  # noqa: F401 - the class the fallback uses


def test_embedded_servers_are_preferred_over_containers(tmp_path) -> None:
    with servers.nats_server(tmp_path) as nats, servers.redis_server(tmp_path) as redis:
        assert servers.plain_url(nats).startswith("nats://127.0.0.1:") and redis.startswith("redis://127.0.0.1:")
        assert nats.startswith(f"nats://{servers.TEST_USER}:")  # the tests' own user (tests/support/servers.py)


def test_without_a_docker_engine_the_fallback_skips_with_its_reason(monkeypatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # never an engine, even on a box that has one
    with pytest.raises(pytest.skip.Exception) as skipped:
        with servers._container_or_skip("nats:2.12", "embedded nats-server failed: test", 4222, "-js"):
            pytest.fail("no container can start without an engine")
    assert "embedded nats-server failed: test; no Docker fallback" in str(skipped.value)
