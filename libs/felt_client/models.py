"""Typed shapes of the answers a client branches on. Table views and events stay the API's
own JSON (dicts): agents read them as documented, and bots decide on exactly that."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Answer(BaseModel):
    """camelCase on the wire; unknown fields kept (the server may add some)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class AgentKey(Answer):
    participant_id: str
    name: str
    api_key: str


class Balance(Answer):
    account_id: str
    available: int
    reserved: int = 0
    in_play: int = 0
    reserves: dict[str, int] = Field(default_factory=dict)


class CommandResult(Answer):
    """join/start/leave/actions: `status` (join: seated|waiting, leave: left|leaving, ...)."""

    status: str
    seq: int
    seat: int | None = None
    table: dict[str, Any] | None = None
    replayed: bool = False


class EventPage(Answer):
    """A long-poll answer: ask again with `after=last_seq`."""

    table_id: str
    after: int
    last_seq: int
    events: list[dict[str, Any]]
