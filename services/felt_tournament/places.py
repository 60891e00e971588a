"""Finishing places from the order players were eliminated (docs/tournaments.md, Places).

Pure: no I/O. Players eliminated in an earlier hand finish below those eliminated later.
Players eliminated in the same hand are placed by the chips they started that hand with: the
bigger stack finishes higher; equal stacks tie and share the places they span (TDA rule).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bust:
    """An entry eliminated in a hand: its stack when the hand started, and its position
    clockwise from that hand's button (the order odd chips of a shared prize go in)."""

    entry_id: str
    starting_stack: int
    order: int = 0


@dataclass(frozen=True)
class Finish:
    """Entries that finished together: they span places `best`..`worst` (one place unless tied),
    listed in the order odd chips of their shared prize go in."""

    entry_ids: tuple[str, ...]
    best: int
    worst: int


def standings(eliminations: list[list[Bust]], winner: str) -> list[Finish]:
    """Every entry's finish, first place first. `eliminations` lists, hand by hand in the order
    they were played, the entries that hand eliminated; `winner` is the one left."""
    seen = {b.entry_id for hand in eliminations for b in hand}
    if winner in seen or len(seen) != sum(len(hand) for hand in eliminations):
        raise ValueError("every entry is eliminated at most once, and the winner not at all")
    place = len(seen) + 1  # the worst place still to give
    finishes: list[Finish] = []
    for hand in eliminations:
        by_stack: dict[int, list[Bust]] = {}
        for bust in hand:
            by_stack.setdefault(bust.starting_stack, []).append(bust)
        for stack in sorted(by_stack):  # the smallest starting stack finishes lowest
            tied = sorted(by_stack[stack], key=lambda b: b.order)
            finishes.append(Finish(tuple(b.entry_id for b in tied), place - len(tied) + 1, place))
            place -= len(tied)
    finishes.append(Finish((winner,), 1, 1))
    return finishes[::-1]
