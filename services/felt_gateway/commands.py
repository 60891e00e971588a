"""The table command each client request becomes — one place for REST (`poker.py`) and the
WebSocket (`ws.py`). Who sends it (participant, owner, kind, name) always comes from the
credentials, never from the request."""

from __future__ import annotations

from typing import Any

from felt_contracts.table import (
    Act, Join, Leave, ParticipantCommand, ParticipantKind, SetAutoRebuy, SetPreAction, Show, SitIn, SitOut, Start,
)
from felt_gateway.identity import Principal

#: client command name (the WebSocket frame `type`) -> the table command
COMMANDS: dict[str, type[ParticipantCommand]] = {
    "join": Join, "start": Start, "leave": Leave, "preaction": SetPreAction,
    "sitOut": SitOut, "sitIn": SitIn, "show": Show, "autoRebuy": SetAutoRebuy,
}


def command(who: Principal, name: str, **fields: Any) -> ParticipantCommand:
    """`name` (a key of COMMANDS) with the request's own fields, sent as `who`."""
    if name == "join":
        fields |= {"owner_id": who.owner_id, "name": who.name[:50],
                   "kind": ParticipantKind.HUMAN if who.kind == "HUMAN" else ParticipantKind.AGENT}
    return COMMANDS[name](participant_id=who.participant_id, **fields)


def act(who: Principal, action: str, amount: int | None, cards: list[str] | tuple[str, ...],
        hand_id: str | None, turn_id: int | None) -> Act:
    """The table's `Act` from the client's action JSON (seed 004; REST body or `act` frame)."""
    return Act(participant_id=who.participant_id, action=action, amount=amount, cards=tuple(cards),  # type: ignore[arg-type]
               hand_id=hand_id, turn_id=turn_id)
