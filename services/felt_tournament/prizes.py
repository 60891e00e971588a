"""Prizes from the payout table, in whole chips (docs/tournaments.md, Prizes). Pure: no I/O.

Each paid place gets its percent of the pool rounded down; the chips rounding leaves over go
one each to the best places, first place first. Entries tied for places share the sum of
those places' prizes equally; what does not divide goes one chip each to the tied entries in
their order (clockwise from the button). Prizes always sum to the pool.
"""

from __future__ import annotations

from decimal import Decimal

from felt_contracts.tournament import PayoutTier
from felt_tournament.places import Finish


def tier_for(payouts: list[PayoutTier], entrants: int) -> PayoutTier:
    """The tier for this many entries: the one with the largest `min_entrants` not above it
    (below every tier: the first)."""
    fitting = [t for t in payouts if t.min_entrants <= entrants]
    return max(fitting, key=lambda t: t.min_entrants) if fitting else min(payouts, key=lambda t: t.min_entrants)


def place_prizes(pool: int, percents: list[Decimal]) -> list[int]:
    """The prize of each paid place (first place first), summing to `pool`."""
    prizes = [int(pool * p // 100) for p in percents]
    left = pool - sum(prizes)
    for i in range(left):  # fewer than the places: each prize lost less than one chip
        prizes[i % len(prizes)] += 1
    return prizes


def award(pool: int, percents: list[Decimal], finishes: list[Finish]) -> dict[str, int]:
    """Every entry's prize (0 outside the money) for these finishes."""
    prizes = place_prizes(pool, percents)
    out: dict[str, int] = {}
    for finish in finishes:
        shared = sum(prizes[place - 1] for place in range(finish.best, finish.worst + 1) if place <= len(prizes))
        each, odd = divmod(shared, len(finish.entry_ids))
        for n, entry_id in enumerate(finish.entry_ids):
            out[entry_id] = each + (1 if n < odd else 0)
    return out
