"""The gateway's `/metrics`: HTTP requests by route template and status, their latency, the
process (memory, CPU, fds) and garbage-collector series and the build (docs/operations.md,
"Reading the metrics")."""

from __future__ import annotations

import re


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one series in Prometheus text (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
            if all(found.get(k) == v for k, v in labels.items()):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_requests_errors_latency_and_the_process_are_counted(http) -> None:
    route = "/api/v2/poker/tables/{table_id}"
    before = (await http.get("/metrics")).text
    missing = await http.get("/api/v2/poker/tables/no-such-table")
    assert missing.status_code >= 400
    after = (await http.get("/metrics")).text
    status = str(missing.status_code)
    assert sample(after, "felt_http_requests_total", route=route, status=status) == (
        sample(before, "felt_http_requests_total", route=route, status=status) + 1
    )
    assert sample(after, "felt_http_request_seconds_count", method="GET", route=route) >= 1
    assert "no-such-table" not in after  # labels are templates, never ids
    assert sample(after, "felt_ready") == 1.0  # /readyz was asked when the stack started
    for series in ("process_resident_memory_bytes", "process_open_fds", "process_cpu_seconds_total"):
        assert sample(after, series) > 0, series
    assert sample(after, "python_gc_collections_total", generation="0") >= 0
    assert "felt_build_info{" in after
