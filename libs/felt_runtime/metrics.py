"""Prometheus metrics of every Felt service, in one registry per process, served at `/metrics`
on the service's HTTP port (`felt_runtime.service` for workers, the gateway's app for it).

All metric names and labels live here, so the Grafana dashboard (deploy/grafana/felt.json)
and docs/operations.md can be checked against one list. Labels are bounded: request and
reply model names, event kinds, outcomes — never a table or participant id.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry()

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

#: the table event kinds that count as a hand's start, finish and cancellation
HAND_EVENTS = {"hand_start": "started", "hand_end": "finished", "hand_cancelled": "cancelled"}


def exposition() -> tuple[bytes, str]:
    """The registry in the Prometheus text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
