"""Bots service messages: add bots to a table (`felt bots --table ID --level hard --count 3`)
and report what each bot did.

Subjects: `BOTS_ADD` (request/reply): `AddBots` -> `BotsStatus` (the bots added; a host's bot at
a private table carries the one-bot code the table gave it, `invite_code`);
`BOTS_REMOVE` (request/reply): `RemoveBot` -> `BotsStatus` (the bot stopped, out of its seat);
`BOTS_STATUS` (request/reply): `BotsQuery` -> `BotsStatus` (every bot of the service).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from felt_contracts.base import Message, Request
from felt_contracts.tournament import TournamentId

Level = Literal["easy", "normal", "hard"]


class AddBots(Request):
    """Seat bots at `table_id`, or register them for `tournament_id` (one of the two)."""

    table_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    tournament_id: TournamentId | None = None
    level: Level = "normal"
    count: Annotated[int, Field(ge=1, le=9)] = 1
    invite_code: Annotated[str, Field(max_length=64)] | None = None  # a host's bot: its pass to the table

    @model_validator(mode="after")
    def _one_place(self) -> AddBots:
        if (self.table_id is None) == (self.tournament_id is None):
            raise ValueError("name a table_id or a tournament_id")
        return self


class RemoveBot(Request):
    table_id: Annotated[str, Field(min_length=1, max_length=64)]
    participant_id: Annotated[str, Field(min_length=1, max_length=200)]


class BotsQuery(Request):
    table_id: str | None = None  # None: every table


class BotInfo(Message):
    participant_id: str
    name: str
    level: Level
    table_id: str
    seated: bool  # holds a seat now
    hands: int  # hands it was dealt in
    actions: int  # actions the table accepted
    refused: int  # actions the table refused (illegal, stale, not your turn)
    errors: int  # other failed calls (the room did not answer, ...)
    timeouts: int  # its turns the table's clock ended


class BotsStatus(Message):
    bots: list[BotInfo]
