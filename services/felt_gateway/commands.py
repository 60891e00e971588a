"""The bus request each client request becomes — one place for REST (`poker.py`) and the
WebSocket (`ws.py`): table commands, their message ids, chat posts. Who sends it (participant,
owner, kind, name, credential) always comes from the credentials, never from the request."""

from __future__ import annotations

import hashlib
from typing import Any

from felt_contracts.chat import ChatPost
from felt_contracts.table import (
    Act,
    Join,
    Leave,
    ParticipantCommand,
    ParticipantKind,
    SetAutoRebuy,
    SetPreAction,
    Show,
    SitIn,
    SitOut,
    Start,
    invite_hash,
)
from felt_contracts.names import ActionName
from felt_gateway.identity import Principal

#: client command name (the WebSocket frame `type`) -> the table command
COMMANDS: dict[str, type[ParticipantCommand]] = {
    "join": Join,
    "start": Start,
    "leave": Leave,
    "preaction": SetPreAction,
    "sitOut": SitOut,
    "sitIn": SitIn,
    "show": Show,
    "autoRebuy": SetAutoRebuy,
}


def command(who: Principal, name: str, **fields: Any) -> ParticipantCommand:
    """`name` (a key of COMMANDS) with the request's own fields, sent as `who`."""
    if name == "join":
        code = fields.pop("invite_code", None)
        fields |= {
            "invite_hash": invite_hash(code) if code else None,
            "owner_id": who.owner_id,
            "name": who.name[:50],
            "kind": ParticipantKind.HUMAN if who.kind == "HUMAN" else ParticipantKind.AGENT,
        }
    return COMMANDS[name](participant_id=who.participant_id, credential_id=who.credential_id, **fields)


def act(
    who: Principal,
    action: ActionName,
    amount: int | None,
    cards: list[str] | tuple[str, ...],
    hand_id: str | None,
    turn_id: int | None,
    *,
    with_view: bool = True,
) -> Act:
    """The table's `Act` from the client's action JSON (the Clawbet rules; REST body or `act` frame;
    `with_view`: the reply carries the view, which REST returns and a socket does not)."""
    return Act(
        participant_id=who.participant_id,
        credential_id=who.credential_id,
        action=action,
        amount=amount,
        cards=tuple(cards),
        hand_id=hand_id,
        turn_id=turn_id,
        with_view=with_view,
    )


#: the longest `Idempotency-Key` a request may carry
KEY_MAX_LENGTH = 200


def message_id(who: Principal, name: str, key: str | None, *, socket: bool = False) -> str | None:
    """The bus message id for a client's idempotency key (REST `Idempotency-Key`, WebSocket
    `requestId`): the service applies a request once per id, so the id is the only record of
    it. None without a key. A key that would not fit a message id is named by its SHA-256, so
    two keys never share an id."""
    if not key:
        return None
    prefix = f"{'ws:' if socket else ''}{name}:{who.participant_id}:"
    if len(prefix) + len(key) > 200:
        key = "#" + hashlib.sha256(key.encode()).hexdigest()
    return (prefix + key)[:200]


def chat_post(who: Principal, table_id: str, text: str, key: str | None) -> ChatPost:
    """A chat post as `who` (its display name from the credentials); `key` from either door
    names the same post (chat applies it once per participant and id)."""
    extra = {"message_id": mid} if (mid := message_id(who, "chat", key)) else {}
    return ChatPost(
        table_id=table_id,
        participant_id=who.participant_id,
        display_name=(who.name or who.participant_id)[:64],
        text=text,
        **extra,
    )
