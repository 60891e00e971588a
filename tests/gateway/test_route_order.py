"""The agents' loop (long-poll the events, act) is matched before the gateway's other API routes:
FastAPI tries routes in order, and routing was a fifth of a long-poll's CPU with them twelfth
(poker.HOT_PATHS; docs/benchmarks.md, "Gateway requests")."""

from __future__ import annotations

from fastapi import FastAPI
from opentelemetry import trace

from felt_gateway.app import make
from felt_runtime.settings import Settings


def test_the_long_poll_and_the_action_are_the_first_api_routes_tried() -> None:
    app = make(Settings())[0]
    routers = [r.original_router for r in app.router.routes if hasattr(r, "original_router")]
    # then the ladder, then the tournaments
    assert [r.prefix for r in routers] == ["/api/v2/poker", "/api/v2/accounts", "/api/v2/poker", "/api/v2/poker"]
    first = [getattr(r, "path", "") for r in routers[0].routes][:2]
    assert first == ["/api/v2/poker/tables/{table_id}/actions", "/api/v2/poker/tables/{table_id}/events"]


def test_requests_skip_fastapis_opentelemetry_bridge_even_with_a_provider_set(monkeypatch) -> None:
    """Felt's metrics are Prometheus: the bridge's check of OpenTelemetry's global providers was
    2.7% of the gateway's CPU at 720 seated, and an operator's provider must not switch it on."""
    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    app = make(Settings())[0]
    assert not app._native_telemetry.enabled()  # the check FastAPI makes per request
    assert FastAPI()._native_telemetry.enabled()  # what FastAPI's defaults would do
