"""The OpenAPI conventions an SDK generator relies on (felt_gateway/openapi.py), for every route and
for a route added later to any router: short unique camelCase operation ids, the error code as an
enum of the codes the gateway answers with, and the documented headers."""

from __future__ import annotations

import re

from fastapi import APIRouter

from felt_gateway.app import make
from felt_gateway.errors import STATUS
from felt_runtime.settings import Settings


def operations(spec: dict) -> list[tuple[str, str, dict]]:
    return [(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def test_operation_ids_are_short_unique_and_camel_case() -> None:
    spec = make(Settings())[0].openapi()
    ids = [op["operationId"] for _, _, op in operations(spec)]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][A-Za-z0-9]{1,19}", i) for i in ids), ids
    assert {"act", "events", "join", "view", "signUp", "createAgent"} <= set(ids)


def test_error_codes_are_an_enum_and_headers_are_documented() -> None:
    spec = make(Settings())[0].openapi()
    code = spec["components"]["schemas"]["ErrorBody"]["properties"]["code"]
    assert set(code["enum"]) == {getattr(c, "value", c) for c in STATUS}
    assert set(spec["components"]["headers"]) == {"X-Correlation-Id", "Retry-After", "Idempotent-Replayed"}
    for method, path, op in operations(spec):
        names = [p["name"] for p in op.get("parameters", ())]
        for status, response in op["responses"].items():
            assert "X-Correlation-Id" in response["headers"], (method, path, status)
            if status in ("429", "503"):
                assert "Retry-After" in response["headers"], (method, path, status)
            if status.startswith("2") and "Idempotency-Key" in names:
                assert "Idempotent-Replayed" in response["headers"], (method, path, status)
    keyed = {
        op["operationId"]
        for _, _, op in operations(spec)
        if "Idempotency-Key" in [p["name"] for p in op.get("parameters", ())]
    }
    assert {"join", "start", "leave", "act", "preaction", "sitOut", "sitIn", "show", "autoRebuy", "chatPost"} <= keyed


def test_a_route_added_to_any_router_follows_the_conventions() -> None:
    app = make(Settings())[0]
    later = APIRouter(prefix="/api/v2/poker")

    @later.get("/something-new")
    async def something_new() -> dict:
        return {}

    app.include_router(later)
    op = app.openapi()["paths"]["/api/v2/poker/something-new"]["get"]
    assert op["operationId"] == "somethingNew"
    assert "X-Correlation-Id" in op["responses"]["200"]["headers"]
