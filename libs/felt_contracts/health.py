"""Health request/reply every service answers on the bus."""

from felt_contracts.base import Message, Request


class HealthRequest(Request):
    pass


class HealthStatus(Message):
    service: str
    status: str  # "ok" or "degraded"
    version: str
    checks: dict[str, str]  # dependency -> "ok" or the error text
