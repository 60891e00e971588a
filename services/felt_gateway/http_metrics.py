"""HTTP request counts, errors (by status code) and latency at the gateway, by route template
(`/api/v2/poker/tables/{table_id}`, never a concrete id: the labels stay bounded). WebSockets are
counted by `felt_gateway_sockets` instead."""

from __future__ import annotations

import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from felt_runtime.metrics import HTTP_REQUESTS, HTTP_SECONDS


class HttpMetrics:
    """Pure ASGI middleware: the route is known once the router has matched (`scope["route"]`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # an exception before the response started is answered 500

        async def record(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            route = _template(scope)
            HTTP_REQUESTS.labels(scope["method"], route, str(status)).inc()
            HTTP_SECONDS.labels(scope["method"], route).observe(time.perf_counter() - started)


def _template(scope: Scope) -> str:
    """The matched route's path template; a mount (static files) by its prefix; else `unmatched`."""
    route: Any = scope.get("route")
    if route is not None and hasattr(route, "path_format"):
        return str(route.path_format)
    root = scope.get("root_path") or scope.get("app_root_path")
    return f"{root}/*" if root else "unmatched"
