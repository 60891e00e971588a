"""What the service keeps of a running tournament's play (the `play` column, as JSON): its
tables, the table events read, the hands started, the level clock and the busts so far."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class Busted(BaseModel):
    entry_id: str
    hand: int  # the tournament's hand number it busted in
    stack: int  # its stack when that hand started
    seat: int
    table: int = 1  # the tournament table it busted at
    round: int = 0  # the hand-for-hand round it busted in (0: not hand-for-hand)


class TablePlay(BaseModel):
    """One table of a tournament, as its events were read."""

    table_id: str
    seq: int = 0
    seats: dict[int, str] = Field(default_factory=dict)  # seat -> participant
    stacks: dict[str, int] = Field(default_factory=dict)  # participant -> stack at the hand's start
    button: int | None = None  # the last hand's button seat
    hand: int = 0  # the tournament's number of the hand running or last dealt here
    hand_id: str | None = None  # the hand running (None: between hands)
    going: bool = False  # told to go: its hand is not seen to start yet
    zero: list[str] = Field(default_factory=list)  # ended the last hand with nothing, not yet cashed out
    round: int = 0  # the hand-for-hand round its hand is in
    broken: bool = False  # its players went elsewhere and it closed
    reset: int = 0  # the seq of a `table_reset` whose players are not seated again yet (0: none)


class MoveRecord(BaseModel):
    """A move (seating.Move) in the tournament's log; `done` once the player sits at the destination."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: str
    hand: int  # the tournament's hands dealt when it was decided
    done: bool = False


class Play(BaseModel):
    """What the service keeps of a running tournament (the `play` column)."""

    table_id: str  # table 1: the first and the final table
    seated: bool = False  # every entrant sat down at their drawn seat
    hand: int = 0  # hands started
    level: int = 0  # index into the definition's levels
    level_ends_at: datetime
    busts: list[Busted] = Field(default_factory=list)
    done: bool = False  # one entry left: the tables close, the chips retire, the prizes are paid
    retired: bool = False  # cancelled while playing: its tables closed and its chips retired
    tables: dict[int, TablePlay] = Field(default_factory=dict)  # number -> its play
    moves: list[MoveRecord] = Field(default_factory=list)
    hfh_round: int = 0  # hand-for-hand (seating.HandForHand): the round, and the tables that dealt it
    hfh_started: list[int] = Field(default_factory=list)
