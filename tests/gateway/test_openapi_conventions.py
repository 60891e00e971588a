"""The OpenAPI conventions an SDK generator relies on (felt_gateway/openapi.py), for every route and
for a route added later to any router: short unique camelCase operation ids, error answers typed
as `ErrorBody` listing only the route's codes (an enum per status, an example per code; no 401/403
on a public route), the documented headers and examples on request bodies."""

from __future__ import annotations

import re

from fastapi import APIRouter

from felt_contracts.errors import ErrorCode
from felt_gateway.app import make
from felt_gateway.auth import Who
from felt_gateway.errors import STATUS, refusals, status_for
from felt_runtime.settings import Settings


def operations(spec: dict) -> list[tuple[str, str, dict]]:
    return [(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def test_operation_ids_are_short_unique_and_camel_case() -> None:
    spec = make(Settings())[0].openapi()
    ids = [op["operationId"] for _, _, op in operations(spec)]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][A-Za-z0-9]{1,19}", i) for i in ids), ids
    assert {"act", "events", "join", "view", "signUp", "createAgent"} <= set(ids)


def error_codes(op: dict) -> dict[str, list[str]]:
    """status -> the codes an operation lists for it."""
    return {
        status: response["content"]["application/json"]["schema"]["properties"]["code"]["enum"]
        for status, response in op["responses"].items()
        if not status.startswith("2")
    }


def test_each_route_lists_only_its_codes_typed_with_examples() -> None:
    spec = make(Settings())[0].openapi()
    code = spec["components"]["schemas"]["ErrorBody"]["properties"]["code"]
    assert set(code["enum"]) == {getattr(c, "value", c) for c in STATUS}
    assert not {"HTTPValidationError", "ValidationError"} & set(spec["components"]["schemas"])
    every: set[str] = set()
    for method, path, op in operations(spec):
        where = (method, path)
        for status, codes in error_codes(op).items():
            media = op["responses"][status]["content"]["application/json"]
            assert media["schema"]["$ref"] == "#/components/schemas/ErrorBody", where
            assert codes and all(status_for(c) == int(status) for c in codes), (where, status, codes)
            assert set(media["examples"]) == set(codes), where
            every |= set(codes)
        for status, response in op["responses"].items():  # every answer's body has its type
            assert all("schema" in media for media in response.get("content", {}).values()), (where, status)
        if "security" not in op and op["operationId"] != "logIn":  # a public route (a wrong password is 401)
            assert not {"401", "403"} & set(op["responses"]), where
        else:
            assert "unauthorized" in error_codes(op)["401"], where
    assert {"getRules", "listTables", "signUp", "logIn"} <= {
        op["operationId"] for _, _, op in operations(spec) if "security" not in op
    }
    join = error_codes(spec["paths"]["/api/v2/poker/tables/{table_id}/join"]["post"])
    assert set(join["409"]) == {
        "already_seated",
        "chips_in_play",
        "conflict",
        "insufficient_funds",
        "table_closed",
        "table_full",
    }
    assert "limit_exceeded" not in error_codes(spec["paths"]["/api/v2/poker/tables/{table_id}"]["get"]).get("403", [])
    assert len(every) > 20


def test_accounts_and_commands_answer_with_examples() -> None:
    """What an SDK shows first: the accounts' answers and a table command's."""
    spec = make(Settings())[0].openapi()
    schemas = spec["components"]["schemas"]
    for name in ("SignedUp", "LoggedIn", "AgentKey", "NameOut", "Revoked", "CommandOut"):
        assert schemas[name].get("examples"), name


def test_request_bodies_have_examples() -> None:
    spec = make(Settings())[0].openapi()
    schemas = spec["components"]["schemas"]
    for method, path, op in operations(spec):
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is not None:
            name = next(ref for ref in [body.get("$ref")] + [s.get("$ref") for s in body.get("anyOf", ())] if ref)
            assert schemas[name.rsplit("/", 1)[-1]].get("examples"), (method, path)


def test_headers_are_documented() -> None:
    spec = make(Settings())[0].openapi()
    assert set(spec["components"]["headers"]) == {"X-Correlation-Id", "Retry-After", "Idempotent-Replayed"}
    for method, path, op in operations(spec):
        names = [p["name"] for p in op.get("parameters", ())]
        assert "X-Correlation-Id" in names, (method, path)
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

    @later.get("/something-new", responses=refusals(ErrorCode.NOT_FOUND, ErrorCode.TABLE_FULL))
    async def something_new(who: Who) -> dict:
        return {}

    app.include_router(later)
    op = app.openapi()["paths"]["/api/v2/poker/something-new"]["get"]
    assert op["operationId"] == "somethingNew"
    assert "X-Correlation-Id" in op["responses"]["200"]["headers"]
    assert error_codes(op) == {"401": ["unauthorized"], "404": ["not_found"], "409": ["table_full"]}
