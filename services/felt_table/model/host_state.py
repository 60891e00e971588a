"""A hosted table's state besides its configuration, as kept with its definition (`Store.save_hosted`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from felt_contracts.table import Join


class Hosting(BaseModel):
    paused: bool = False
    held: bool = False  # the host's hold: a hand is dealt only on the host's `go`, one hand per go
    go: bool = False  # a go whose hand is not dealt yet
    invite_hash: str | None = None
    removed: list[str] = Field(default_factory=list)  # participant and owner ids that may not sit again
    pending: list[Join] = Field(default_factory=list)  # requests to sit, oldest first
    passes: dict[str, str | None] = Field(default_factory=dict)  # a bot's pass hash -> the bot it seated
    closed: bool = False

    def pending_of(self, pid: str) -> Join | None:
        return next((req for req in self.pending if req.participant_id == pid), None)
