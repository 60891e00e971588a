"""The gateway's OpenAPI conventions, in one place so that a route added to any router follows them:

- operation ids are the handler's name in camelCase (`join`, `act`, `signUp`): short, and stable
  while the handler keeps its name (an SDK generator makes its method names of them);
- the error body's `code` is an enum of every code the gateway answers with (`errors.STATUS`);
- the headers a client meets are documented: `X-Correlation-Id` on every answer (a request may
  send its own: the API's description says so), `Retry-After` on 429 and 503,
  `Idempotent-Replayed` on the answers of a POST that takes an `Idempotency-Key`.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic.alias_generators import to_camel

from felt_gateway.errors import STATUS

CORRELATION = "X-Correlation-Id"
HEADERS: dict[str, dict[str, Any]] = {
    CORRELATION: {
        "description": "the request's correlation id (the caller's, or a new one): every log line about it, in any service, carries it",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "seconds to wait before trying the same request again",
        "schema": {"type": "integer", "minimum": 1},
    },
    "Idempotent-Replayed": {
        "description": "`true`: the answer of an earlier request with this `Idempotency-Key`; nothing was done again",
        "schema": {"type": "string", "enum": ["true"]},
    },
}


def operation_id(route: APIRoute) -> str:
    """A route's operationId: its handler's name in camelCase."""
    return to_camel(route.name)


def install(app: FastAPI) -> None:
    """Apply the conventions to the document `app` writes (after the other extensions of it)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:  # FastAPI keeps the document it wrote, changed in place here
            return app.openapi_schema
        return document(build())

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend it


def document(spec: dict[str, Any]) -> dict[str, Any]:
    """`spec` with the error codes and the headers written in (in place)."""
    components = spec.setdefault("components", {})
    components["headers"] = HEADERS
    error = components.get("schemas", {}).get("ErrorBody")
    if error is not None:
        error["properties"]["code"]["enum"] = sorted(getattr(code, "value", code) for code in STATUS)
    for operations in spec.get("paths", {}).values():
        for operation in operations.values():
            keyed = any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", ()))
            for status, response in operation.get("responses", {}).items():
                headers = response.setdefault("headers", {})
                headers[CORRELATION] = {"$ref": f"#/components/headers/{CORRELATION}"}
                if status in ("429", "503"):
                    headers["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}
                if keyed and status.startswith("2"):
                    headers["Idempotent-Replayed"] = {"$ref": "#/components/headers/Idempotent-Replayed"}
    return spec
