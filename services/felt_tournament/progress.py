"""What the service keeps of a running tournament's play (the `play` column, as JSON): its
table, the table events read, the hands started, the level clock and the busts so far."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class Busted(BaseModel):
    entry_id: str
    hand: int  # the tournament's hand number it busted in
    stack: int  # its stack when that hand started
    seat: int


class Play(BaseModel):
    """What the service keeps of a running tournament (the `play` column)."""

    table_id: str
    seated: bool = False  # every entrant sat down and the table deals
    seq: int = 0  # the table's events read
    hand: int = 0  # hands started
    seats: dict[int, str] = Field(default_factory=dict)  # seat -> participant
    stacks: dict[str, int] = Field(default_factory=dict)  # participant -> stack at the hand's start
    level: int = 0  # index into the definition's levels
    level_ends_at: datetime
    busts: list[Busted] = Field(default_factory=list)
    done: bool = False  # one entry left: the table closes, the chips retire, the prizes are paid
    retired: bool = False  # cancelled while playing: its table closed and its chips retired
