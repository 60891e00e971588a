"""Prometheus metrics of every Felt service, in one registry per process, served at `/metrics`
on the service's HTTP port (`felt_runtime.service` for workers, the gateway's app for it).

All metric names and labels live here, so the Grafana dashboard (deploy/k8s/base/felt-dashboard.json)
and docs/operations.md can be checked against one list. Labels are bounded: request and
reply model names, event kinds, outcomes — never a table or participant id.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    generate_latest,
)

REGISTRY = CollectorRegistry()
# the process (process_cpu_seconds_total, process_resident_memory_bytes, process_open_fds, ...),
# the interpreter (python_info) and its garbage collector (python_gc_collections_total, ...):
# prometheus_client's standard collectors, the ones its default registry carries
for _collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
    REGISTRY.register(_collector)

#: seconds; a table command is a few ms, a wallet call under load tens of ms
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

HANDS = Counter(
    "felt_hands", "Hands by what happened to them (started, finished, cancelled)", ["event"], registry=REGISTRY
)
HANDLED = Histogram(
    "felt_bus_handled_seconds",
    "Time to answer one bus request, by request model (a table action is `Act`)",
    ["request", "outcome"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
CALLS = Counter(
    "felt_bus_calls",
    "Bus requests this process sent, by request model and outcome (ok, error code, timeout)",
    ["request", "outcome"],
    registry=REGISTRY,
)
TRANSFERS = Counter(
    "felt_wallet_transfers",
    "Wallet commands committed, by command model and outcome",
    ["command", "outcome"],
    registry=REGISTRY,
)
BATCH = Histogram(
    "felt_wallet_batch_size",
    "Wallet commands per group commit (one transaction)",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
    registry=REGISTRY,
)
GC_FROZEN = Gauge(
    "felt_gc_frozen_objects",
    "objects start-up left alive, frozen out of the garbage collector's full collections",
    registry=REGISTRY,
)
GC_PAUSE = Histogram(
    "felt_gc_pause_seconds",
    "Full garbage collections of the paced collector (FELT_GC_FULL_SECONDS), by how long the process stopped",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
SOCKETS = Gauge("felt_gateway_sockets", "WebSockets open on this gateway", registry=REGISTRY)
TABLES_OWNED = Gauge(
    "felt_table_tables_owned", "Tables this table-service replica owns (holds the lease of)", registry=REGISTRY
)
LEASES = Counter(
    "felt_table_leases",
    "Table lease changes on this replica (acquired, taken_over, lost, released)",
    ["event"],
    registry=REGISTRY,
)

HTTP_REQUESTS = Counter(
    "felt_http_requests",
    "HTTP requests the gateway answered, by method, route template and status code",
    ["method", "route", "status"],
    registry=REGISTRY,
)
HTTP_SECONDS = Histogram(
    "felt_http_request_seconds",
    "Time to answer one HTTP request at the gateway, by method and route template (long-polls wait on purpose)",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
OLDEST_OPEN_HAND = Gauge(
    "felt_wallet_oldest_open_hand_seconds",
    "Age of the oldest hand whose escrow is neither settled nor cancelled (0: none open)",
    registry=REGISTRY,
)
LIMITS_BACKLOG = Gauge(
    "felt_limits_backlog_messages",
    "Wallet transfer events limits has not yet received (its consumer's pending count)",
    registry=REGISTRY,
)
READY = Gauge(
    "felt_ready",
    "1 when the service's last readiness check (/readyz, the bus health request) found every dependency answering",
    registry=REGISTRY,
)
BUILD = Info("felt_build", "The running build: Felt's version and the Python it runs on", registry=REGISTRY)


def _version() -> str:
    try:
        return version("felt")
    except PackageNotFoundError:  # pragma: no cover - run from a tree that was never installed
        return "unknown"


BUILD.info({"version": _version(), "python": platform.python_version()})

#: the table event kinds that count as a hand's start, finish and cancellation
HAND_EVENTS = {"hand_start": "started", "hand_end": "finished", "hand_cancelled": "cancelled"}


def exposition() -> tuple[bytes, str]:
    """The registry in the Prometheus text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
