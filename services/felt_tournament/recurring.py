"""The recurring Sit & Go: a template definition whose copies (`<template id>-<n>`) open one
after another, so one always takes registrations. A copy opens at start when none is open, and
when the open one fills and starts. The default template is a six-seat Sit & Go for the default
room; `FELT_TOURNAMENT_RECURRING_FILE` names another (a `TournamentDefinition` as JSON)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from felt_contracts.tournament import CreateTournament, Level, PayoutTier, TournamentDefinition, TournamentList

#: the default room's Sit & Go: six seats, 50 paper chips, ten-minute levels, two paid
DEFAULT = TournamentDefinition(
    tournament_id="sng-six",
    name="Six-max Sit & Go",
    buy_in=50,
    starting_chips=1500,
    seats_per_table=6,
    min_entrants=6,
    max_entrants=6,
    levels=[
        Level(small_blind=10 * m, big_blind=20 * m, duration_seconds=600) for m in (1, 2, 3, 5, 8, 12, 20, 30, 50, 75)
    ],
    payouts=[PayoutTier(min_entrants=6, percents=[Decimal(65), Decimal(35)])],
)


def load_template(enabled: bool, path: str) -> TournamentDefinition | None:
    """The template the settings name (None: no recurring Sit & Go)."""
    if not enabled:
        return None
    if path:
        return TournamentDefinition.model_validate_json(Path(path).read_text())
    return DEFAULT


def next_copy(template: TournamentDefinition, listed: TournamentList) -> CreateTournament | None:
    """The copy to open, or None while one takes registrations."""
    prefix = f"{template.tournament_id}-"
    mine = [t for t in listed.tournaments if t.definition.tournament_id.startswith(prefix)]
    if any(t.status == "registering" for t in mine):
        return None
    numbers = [int(n) for t in mine if (n := t.definition.tournament_id.removeprefix(prefix)).isdigit()]
    number = max(numbers, default=0) + 1
    return CreateTournament(definition=template.model_copy(update={"tournament_id": f"{prefix}{number}"}))
