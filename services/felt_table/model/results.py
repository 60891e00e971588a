"""Each player's result of a settled hand, kept beside its history: the ladder and the benchmark
matches add them up (felt_table/ports/results.py) instead of reading every hand's record."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from felt_engine.profiles import bet_unit
from felt_engine.state import HandState


def results_of(
    hand: HandState, table_id: str, participants: dict[int, str], ended_at: datetime
) -> list[dict[str, Any]]:
    """One `table_hand_results` row per dealt player: chips won (negative: lost), the big blind
    (or ante) they are counted in, and the other players dealt in."""
    unit = bet_unit(hand.profile, hand.stakes)
    dealt = {seat: participants[seat] for seat in hand.seats}
    return [
        {
            "hand_id": hand.hand_id,
            "table_id": table_id,
            "participant_id": dealt[seat],
            "opponents": ",".join(sorted(pid for other, pid in dealt.items() if other != seat)),
            "net": hand.stacks[i] - hand.starting_stacks[i],
            "unit": unit,
            "ended_at": ended_at,
        }
        for i, seat in enumerate(hand.seats)
    ]
