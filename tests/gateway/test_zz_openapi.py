"""The OpenAPI document: served, every response typed, fuzzed for 5xx and for responses that
do not conform to their schema — a status the route does not list, or an error code its status
does not list (schemathesis over the real port, ~60 s) — and every operation in it exercised by
this folder's tests. (Named `zz` so it runs last.)"""

from __future__ import annotations

import re
import time

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import FailureGroup, response_schema_conformance, status_code_conformance

from felt_gateway.app import make
from felt_runtime.settings import Settings
from tests.gateway.conftest import EXERCISED
from tests.support.gateway import unique_email

FUZZ_SECONDS = 60.0
SKIP = {
    ("POST", "/api/v2/accounts/logout"),  # would end the fuzzer's own login
    ("POST", "/api/v2/poker/matches"),  # waits 30 s on the bots service, which this room does not run
}


def login(url: str) -> tuple[dict[str, str], dict[str, str]]:
    email, password = unique_email(), "fuzzing password"
    with httpx.Client(base_url=url, timeout=30) as c:
        c.post("/api/v2/accounts/signup", json={"email": email, "password": password}).raise_for_status()
        token = c.post("/api/v2/accounts/login", json={"email": email, "password": password}).json()["token"]
        owner = {"Authorization": f"Bearer {token}"}
        key = c.post("/api/v2/accounts/agents", json={"name": "fuzz"}, headers=owner).json()["apiKey"]
    return owner, {"Authorization": f"Bearer {key}"}


def test_openapi_is_served(stack) -> None:
    doc = httpx.get(f"{stack.url}/openapi.json").json()
    assert doc["info"]["title"] == "Felt gateway"
    assert "/api/v2/poker/tables/{table_id}/actions" in doc["paths"]
    assert httpx.get(f"{stack.url}/docs").status_code == 200


def test_fuzz_finds_no_server_errors_and_responses_conform(stack) -> None:
    schema = schemathesis.openapi.from_url(f"{stack.url}/openapi.json")
    owner, agent = login(stack.url)
    operations = [r.ok() for r in schema.get_all_operations()]
    operations = [op for op in operations if (op.method.upper(), op.path) not in SKIP]
    budget = FUZZ_SECONDS / len(operations)
    failures: list[str] = []
    missing = [name for name in ("table", "tournament") if not stack.has(name)]
    for n, op in enumerate(operations):
        headers = owner if n % 2 == 0 else agent
        started = time.monotonic()
        strategy = op.as_strategy(GenerationMode.POSITIVE) | op.as_strategy(GenerationMode.NEGATIVE)

        @given(case=strategy)
        @settings(
            max_examples=40,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case) -> None:  # called at once, below: the loop's variables are this operation's
            if time.monotonic() - started > budget:  # noqa: B023 - run in this iteration
                return
            merged = {**(case.headers or {}), **headers}  # noqa: B023 - run in this iteration
            response = case.call(base_url=stack.url, headers=merged, timeout=30)
            if response.status_code >= 500:
                if response.status_code == 503 and any(f"felt.{name}." in response.text for name in missing):
                    return  # a service this stack does not run: "unavailable" is the honest answer
                what = f"{response.status_code} {response.text[:200]}"
                failures.append(f"{op.method.upper()} {case.formatted_path} -> {what}")  # noqa: B023 - run in this iteration
                return
            try:
                case.validate_response(response, checks=[status_code_conformance, response_schema_conformance])
            except (AssertionError, FailureGroup) as exc:
                what = f"{response.status_code} does not conform: {str(exc)[:1500]}"
                failures.append(f"{op.method.upper()} {case.formatted_path} -> {what}")  # noqa: B023 - run in this iteration

        run()
    assert failures == [], "\n".join(failures)


def _free_form(schema: object, defs: dict, path: str, seen: set[str]) -> list[str]:
    """Where `schema` (or anything it reaches) admits any object: an object without declared
    properties whose values are untyped, an empty schema, or `additionalProperties: true`."""
    if not isinstance(schema, dict):
        return []
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        return _free_form(defs[name], defs, f"{path}->{name}", seen | {name})
    found = []
    extra = schema.get("additionalProperties")
    if (
        schema == {}
        or extra is True
        or extra == {}
        or (schema.get("type") == "object" and "properties" not in schema and not extra)
    ):
        found.append(path)
    for key in ("properties",):
        for name, sub in schema.get(key, {}).items():
            found += _free_form(sub, defs, f"{path}.{name}", seen)
    for key in ("items", "additionalProperties"):
        found += _free_form(schema.get(key), defs, f"{path}[]", seen)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in schema.get(key, []):
            found += _free_form(sub, defs, path, seen)
    return found


def test_every_response_is_typed() -> None:
    """The Clawbet rules' shapes for agent authors: no 2xx JSON response of the API is a free-form object."""
    doc = make(Settings())[0].openapi()
    defs = doc["components"]["schemas"]
    loose = []
    for path, item in doc["paths"].items():
        if not path.startswith(("/api/v2/poker", "/api/v2/accounts")):
            continue
        for method, op in item.items():
            for status, response in op.get("responses", {}).items():
                media = response.get("content", {}).get("application/json")
                if status.startswith("2") and media is not None:
                    loose += _free_form(media["schema"], defs, f"{method.upper()} {path} {status}", set())
    assert loose == []


def _template_regex(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")


def test_every_openapi_operation_is_exercised() -> None:
    """Runs after every other gateway test (see `pytest_collection_modifyitems` in conftest)."""
    if not EXERCISED:
        pytest.skip("run the whole tests/gateway folder: coverage is collected from the other tests")
    doc, _ = make(Settings())
    doc = doc.openapi()
    missing = []
    for path, item in doc["paths"].items():
        pattern = _template_regex(path)
        for method in item:
            if not any(m == method.upper() and pattern.match(p) for m, p in EXERCISED):
                missing.append(f"{method.upper()} {path}")
    # `/hands/{id}` also matches `/hands/{id}.phh`; both are reached explicitly by the play tests
    assert missing == []
