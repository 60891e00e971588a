"""Names the wire, the engine and the clients share, defined once (plain `typing`, no pydantic:
the engine imports them too)."""

from __future__ import annotations

from typing import Literal, get_args

#: the Clawbet rules' actions; `hit` is ante-nl-1's check/call
ActionName = Literal["fold", "check", "call", "bet", "raiseTo", "allIn", "draw", "hit"]
#: where a hand is: a betting round, the draw (draw5-1), or over
Phase = Literal["betting", "draw", "over"]
#: what the engine's operations are (`felt_engine.operations.Operation.kind`), in a hand's log,
#: its history and the table's events
OperationKind = Literal[
    "hand_start",
    "post_ante",
    "post_blind",
    "deal_hole",
    "deal_board",
    "burn",
    "street",
    "fold",
    "check",
    "call",
    "bet",
    "raise",
    "draw",
    "show",
    "award",
    "hand_end",
]
#: a table event (`TableEvent.kind`): a hand's operations, and what happens around them
EventKind = (
    OperationKind
    | Literal[
        "seated",
        "waiting",
        "ready",
        "sit_out",
        "sit_in",
        "left",
        "disconnected",
        "reconnected",
        "rebuy",
        "auto_rebuy",
        "session_closed",
        "table_reset",
        "table_closed",
        "hand_cancelled",
        "leaving",
        "paused",
        "resumed",
        "stack_reconciled",
        "table_paused",
        "table_resumed",
        "table_held",
        "table_go",
        "blinds_changed",
        "seat_requested",
        "seat_approved",
        "seat_declined",
        "player_removed",
        "turn",
        "time_bank",
        "preaction",
    ]
)
#: the five-card draw rules' pre-action checkboxes
PreActionName = Literal["check_fold", "fold", "call_any", "raise_any"]
PRE_ACTIONS: tuple[str, ...] = get_args(PreActionName)
