"""The REST API without a table: rules, limits passthrough, error shapes and statuses."""

from __future__ import annotations

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.health import HealthRequest, HealthStatus
from felt_gateway.errors import STATUS
from felt_runtime.bus import call
from tests.support.gateway import new_agent, sign_up
from tests.support.servers import connected


async def test_rules_per_profile_are_public(http) -> None:
    default = (await http.get("/api/v2/poker/rules")).json()
    assert default["rulesVersion"] == "nlhe-1" and "`table.yourSeatId`" in default["text"]
    assert "`table.hand.legalActions`" in default["text"] and '{"type":"raiseTo","amount":60}' in default["text"]
    for version in default["available"]:
        doc = (await http.get("/api/v2/poker/rules", params={"rulesVersion": version})).json()
        assert doc["rulesVersion"] == version and f"Rules version: `{version}`" in doc["text"]
    assert "hit" in (await http.get("/api/v2/poker/rules", params={"rulesVersion": "ante-nl-1"})).json()["text"]
    missing = await http.get("/api/v2/poker/rules", params={"rulesVersion": "nope-9"})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


async def test_a_table_id_with_a_final_newline_is_no_table(http) -> None:
    """Found by the schemathesis fuzzer: "3\n" passed the table-id check and NATS refused the subject (500)."""
    owner = await sign_up(http)
    for path in ("/api/v2/poker/tables/3%0A", "/api/v2/poker/tables/3%0A/events"):
        r = await http.get(path, headers=owner["headers"])
        assert r.status_code == 404 and r.json()["code"] == "not_found", (path, r.text)


async def test_limits_read_lower_raise_and_freeze(http) -> None:
    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    state = (await http.get("/api/v2/poker/limits", headers=agent["headers"])).json()
    assert state["owner"]["scopeId"] == owner["ownerId"] and state["participant"]["scopeId"] == agent["participantId"]
    assert "dailyBuyIn" not in state["owner"]["limits"] and "daily_buy_in" in state["owner"]["limits"]  # dict keys stay
    lowered = await http.post(
        "/api/v2/poker/limits/caps", json={"limit": "daily_buy_in", "cap": 500}, headers=agent["headers"]
    )
    assert lowered.status_code == 200 and lowered.json()["applied"] is True
    raised = await http.post(
        "/api/v2/poker/limits/caps", json={"limit": "daily_buy_in", "cap": 5000}, headers=agent["headers"]
    )
    assert raised.status_code == 403 and raised.json()["code"] == "forbidden"  # only the owner raises
    by_owner = await http.post(
        "/api/v2/poker/limits/caps", json={"limit": "daily_buy_in", "cap": 5000}, headers=owner["headers"]
    )
    assert by_owner.status_code == 200 and by_owner.json()["applied"] is False  # waits for the cool-off
    mine = await http.post(
        "/api/v2/poker/limits/caps",
        json={"scope": "participant", "limit": "session_hands", "cap": 3},
        headers=agent["headers"],
    )
    assert mine.status_code == 200
    frozen = await http.post(
        "/api/v2/poker/limits/freeze", json={"scope": "participant", "reason": "break"}, headers=agent["headers"]
    )
    assert frozen.status_code == 200 and frozen.json()["frozen"] is True
    assert (
        await http.post(
            "/api/v2/poker/limits/freeze", json={"scope": "participant", "frozen": False}, headers=agent["headers"]
        )
    ).status_code == 403
    thawed = await http.post(
        "/api/v2/poker/limits/freeze", json={"scope": "owner", "frozen": False}, headers=owner["headers"]
    )
    assert thawed.status_code == 200
    bad = await http.post(
        "/api/v2/poker/limits/caps", json={"limit": "daily_buy_in", "cap": -1}, headers=owner["headers"]
    )
    assert bad.status_code == 422
    unknown = await http.post(
        "/api/v2/poker/limits/caps", json={"limit": "nonsense", "cap": 1}, headers=owner["headers"]
    )
    assert unknown.status_code == 422


async def test_bad_input_is_4xx_with_the_error_shape(http) -> None:
    owner = await sign_up(http)
    h = owner["headers"]
    cases = [
        (
            await http.post("/api/v2/poker/tables/t1/actions", json={"type": "bet"}, headers=h),
            422,
        ),  # bet needs an amount
        (await http.post("/api/v2/poker/tables/t1/actions", json={"type": "call", "amount": 5}, headers=h), 422),
        (await http.post("/api/v2/poker/tables/t1/actions", json={"type": "shove"}, headers=h), 422),
        (await http.post("/api/v2/poker/tables/t1/actions", json={"type": "bet", "amount": "20"}, headers=h), 422),
        (
            await http.post(
                "/api/v2/poker/tables/t1/join", content=b"[", headers={**h, "content-type": "application/json"}
            ),
            400,
        ),
        (await http.get("/api/v2/poker/tables/NOT..VALID", headers=h), 404),
        (await http.get("/api/v2/poker/tables/t1/events", params={"after": -1}, headers=h), 422),
        (await http.get("/api/v2/poker/nowhere", headers=h), 404),
    ]
    for response, status in cases:
        assert response.status_code == status, (response.request.url, response.text)
        assert set(response.json()) == {"code", "message", "details"}


def test_every_error_code_has_a_status_and_none_is_a_500_for_bad_input() -> None:
    assert {c.value for c in ErrorCode} <= {str(k) for k in STATUS}
    for code in (ErrorCode.MALFORMED, ErrorCode.VALIDATION, ErrorCode.INVALID_AMOUNT):
        assert 400 <= STATUS[code] < 500
    assert (
        STATUS[ErrorCode.STALE_TURN] == 409
        and STATUS[ErrorCode.THROTTLED] == 429
        and STATUS[ErrorCode.UNAVAILABLE] == 503
    )


async def test_health_is_the_runtimes_over_http_and_the_bus(http, nats_url) -> None:
    """The gateway answers /healthz, /readyz, /metrics and felt.health.gateway as every worker does
    (felt_runtime.service.Probes), with its own dependencies in the checks."""

    alive = await http.get("/healthz")
    assert alive.status_code == 200 and alive.json() == {"service": "gateway", "status": "ok"}
    ready = await http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["service"] == "gateway"
    assert ready.json()["checks"] == {"nats": "ok", "database": "ok", "redis": "ok"}
    metrics = await http.get("/metrics")
    assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain")
    assert "/healthz" not in (await http.get("/openapi.json")).text
    async with connected(nats_url) as broker:
        status = await call(broker, subjects.health("gateway"), HealthRequest(), HealthStatus)
    assert status.service == "gateway" and status.status == "ok"
