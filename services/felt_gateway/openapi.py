"""The gateway's OpenAPI conventions, in one place so that a route added to any router follows them:

- operation ids are the handler's name in camelCase (`join`, `act`, `signUp`): short, and stable
  while the handler keeps its name (an SDK generator makes its method names of them);
- every route lists the error codes it answers with, by status, as the enum of the body's `code`:
  those it declares (`responses=refusals(...)`, next to the route) and those its signature
  implies (credentials: `unauthorized`; the owner's token: `forbidden`; a body: `malformed`;
  any parameter FastAPI validates: `validation`); `ErrorBody.code` is the enum of them all;
- the headers a client meets are documented: `X-Correlation-Id` on every answer (a request may
  send its own: the API's description says so), `Retry-After` on 429 and 503,
  `Idempotent-Replayed` on the answers of a POST that takes an `Idempotency-Key`.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi import params
from fastapi.dependencies.utils import get_flat_params
from fastapi import routing
from fastapi.routing import APIRoute
from pydantic.alias_generators import to_camel

from felt_contracts.errors import ErrorCode
from felt_gateway import auth
from felt_gateway.errors import STATUS, ErrorBody, codes_of, refusals

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


#: a request may name its own correlation id (at most 200 characters)
CORRELATION_PARAMETER = {
    "name": CORRELATION,
    "in": "header",
    "required": False,
    "description": "your id for this request, echoed in the answer and in every log line about it",
    "schema": {"type": "string", "maxLength": 200},
}


def operation_id(route: APIRoute) -> str:
    """A route's operationId: its handler's name in camelCase."""
    return to_camel(route.name)


def implied(route: Any) -> set[str]:
    """The codes a route's signature implies, whatever its handler does (`route`: an APIRoute,
    or FastAPI's view of one as a router included it)."""
    codes: set[str] = set()
    if auth.depends_on(route.dependant, auth.principal):
        codes.add(ErrorCode.UNAUTHORIZED)
    if auth.depends_on(route.dependant, auth.owner):
        codes.add(ErrorCode.FORBIDDEN)
    if route.body_field is not None:
        codes |= {ErrorCode.MALFORMED, ErrorCode.VALIDATION}
    if any(not isinstance(field.field_info, params.Path) for field in get_flat_params(route.dependant)):
        codes.add(ErrorCode.VALIDATION)  # a query or header parameter (a path's is any string here)
    return codes


def install(app: FastAPI) -> None:
    """Apply the conventions to the document `app` writes (after the other extensions of it)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:  # FastAPI keeps the document it wrote, changed in place here
            return app.openapi_schema
        spec = build()
        for route in routing.iter_route_contexts(app.routes):  # with the prefixes routers were included with
            if isinstance(route.original_route, APIRoute) and route.include_in_schema:
                for method in route.methods or ():
                    operation = spec["paths"][route.path_format][method.lower()]
                    answers = refusals(*codes_of(route.responses), *implied(route))
                    operation["responses"] = {
                        **{s: r for s, r in operation["responses"].items() if s.startswith("2")},
                        **{str(status): answer for status, answer in answers.items()},
                    }
        return document(spec)

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend it


def document(spec: dict[str, Any]) -> dict[str, Any]:
    """`spec` with the error body, the error codes and the headers written in (in place)."""
    components = spec.setdefault("components", {})
    components["headers"] = HEADERS
    schemas = components.setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):  # FastAPI's 422, answered as an ErrorBody here
        schemas.pop(name, None)
    schemas.update(ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}").pop("$defs"))
    schemas["ErrorBody"] = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas["ErrorBody"].pop("$defs")
    schemas["ErrorBody"]["properties"]["code"]["enum"] = sorted(getattr(code, "value", code) for code in STATUS)
    for operations in spec.get("paths", {}).values():
        for operation in operations.values():
            parameters = operation.setdefault("parameters", [])
            keyed = any(p.get("name") == "Idempotency-Key" for p in parameters)
            parameters.append(CORRELATION_PARAMETER)
            for status, response in operation.get("responses", {}).items():
                headers = response.setdefault("headers", {})
                headers[CORRELATION] = {"$ref": f"#/components/headers/{CORRELATION}"}
                if status in ("429", "503"):
                    headers["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}
                if keyed and status.startswith("2"):
                    headers["Idempotent-Replayed"] = {"$ref": "#/components/headers/Idempotent-Replayed"}
    return spec
