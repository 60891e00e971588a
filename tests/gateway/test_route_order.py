"""The agents' loop (long-poll the events, act) is matched before the gateway's other API routes:
FastAPI tries routes in order, and routing was a fifth of a long-poll's CPU with them twelfth
(poker.HOT_PATHS; docs/benchmarks.md, "Gateway requests")."""

from __future__ import annotations

from felt_gateway.app import make
from felt_runtime.settings import Settings


def test_the_long_poll_and_the_action_are_the_first_api_routes_tried() -> None:
    app = make(Settings())[0]
    routers = [r.original_router for r in app.router.routes if hasattr(r, "original_router")]
    assert [r.prefix for r in routers] == ["/api/v2/poker", "/api/v2/accounts"]
    first = [getattr(r, "path", "") for r in routers[0].routes][:2]
    assert first == ["/api/v2/poker/tables/{table_id}/actions", "/api/v2/poker/tables/{table_id}/events"]
