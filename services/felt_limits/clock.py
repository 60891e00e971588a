"""The clock limits reads "now" from: injected so tests can cross UTC midnight without sleeping."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FileClock:
    """Tests only (FELT_LIMITS_CLOCK_FILE): the time is whatever ISO datetime the file holds,
    so a test can move the clock of a service running in another process."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def now(self) -> datetime:
        value = datetime.fromisoformat(self.path.read_text().strip())
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def utc(value: datetime) -> datetime:
    """Aware UTC (naive values, as SQLite returns them, are taken as UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
