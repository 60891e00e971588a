"""The services Felt knows, their default HTTP ports, and which are installed here."""

from __future__ import annotations

import importlib.util

#: service name -> default HTTP port (health/readiness for workers; the API for the gateway)
SERVICES: dict[str, int] = {
    "wallet": 8101,
    "limits": 8102,
    "timer": 8103,
    "table": 8104,
    "chat": 8105,
    "gateway": 8000,
    "bots": 8106,
    "tournament": 8107,
}


#: service name -> the Unix nice `felt up` (and `make load`) start it with (`FELT_NICE`; 0 if absent).
#: Most of what limits, the timer and chat do is off the action's path: limits applies the
#: wallet's transfer events in SQL batches (it answers a call's or bet's wager check from memory,
#: the one part on the path), the timer arms deadlines seconds away without the table waiting,
#: chat carries chat. On one busy host they give way to the gateway, table and wallet, whose
#: requests then wait less for a core (docs/architecture.md, "What stays on the action's path").
#: The tournament service is off it too: registrations and payouts are rare.
NICE: dict[str, int] = {"limits": 10, "timer": 10, "chat": 10, "tournament": 10}


def nice(service: str) -> int:
    return NICE.get(service, 0)


def default_port(service: str) -> int:
    """The service's well-known port (8199 for a service not in the catalog, e.g. test ones)."""
    return SERVICES.get(service, 8199)


def installed() -> list[str]:
    """Services whose package (`felt_<name>` with a `__main__`) exists, in start order."""
    return [name for name in SERVICES if _has_main(f"felt_{name}")]


def _has_main(package: str) -> bool:
    if importlib.util.find_spec(package) is None:
        return False
    return importlib.util.find_spec(f"{package}.__main__") is not None
