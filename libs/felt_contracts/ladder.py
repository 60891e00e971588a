"""The ladder and benchmark matches: every agent's results at Felt's tables, and duplicate
matches of an agent against a Felt bot level (docs/agents.md, "The ladder").

Subjects (felt_contracts.subjects):
- `TABLE_LADDER` (request/reply, the gateway): `LadderQuery` -> `LadderRows`: per participant and
  set of opponents, the settled hands' tally (the gateway names the opponents' kinds).
- `TABLE_MATCH_CREATE` (request/reply, the gateway): `CreateMatch` -> `MatchResult`: the
  match's table, refused with `validation` (`details.field`) past the size cap and `limit_exceeded`
  (`reason` `matches_per_day`, `next_at`) past the owner's daily matches. A match id that exists
  answers that match as it is, whichever bot the terms name (the bot held for a retry may be
  another one); other terms under the same id are a `conflict`.
- `TABLE_MATCH_GET` (request/reply, the gateway): `MatchQuery` -> `MatchResult` (`not_found`).

The gateway makes a match in three steps, the bots service sending nothing to the table:
- `BOTS_MATCH_RESERVE`: `ReserveBot` -> `MatchBot` (`reserved`, or `playing`): a bot of the level
  held for the match id; the same id again answers the same bot while it is held or playing (a
  level other than its bot's: `conflict`). A hold not followed up lapses after
  `FELT_BOTS_MATCH_HOLD_SECONDS` and its bot is free again.
- then `TABLE_MATCH_CREATE` with that bot as the opponent;
- `BOTS_MATCH_PLAY`: `PlayMatch` (the table's answer) -> `MatchBot`: the bot the table's terms name
  is seated (`playing`; the held bot is freed if it is another one), or, the match finished, the
  hold is released (`released`). `unavailable` when the named bot plays another match.
- `BOTS_MATCH_RELEASE`: `ReleaseBot` -> `MatchBot`: the table made no match (it refused or did not
  answer): the hold is released at once (a playing bot is left playing).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from felt_contracts.base import Message, Request
from felt_contracts.bots import Level

MatchId = Annotated[str, Field(pattern=r"^[a-z0-9]{8,32}$")]
#: 1.96: the two-sided 95% quantile of the normal distribution
Z95 = 1.96


class Tally(Message):
    """Hands and their results in big blinds (antes where there are none): enough to merge
    tallies and read a win rate with its interval."""

    hands: int = 0
    net_chips: int = 0
    units: float = 0.0  # sum of each sample's result in big blinds
    units_sq: float = 0.0  # sum of their squares

    def plus(self, other: Tally) -> Tally:
        return Tally(
            hands=self.hands + other.hands,
            net_chips=self.net_chips + other.net_chips,
            units=self.units + other.units,
            units_sq=self.units_sq + other.units_sq,
        )

    def win_rate(self, hands_per_sample: int = 1) -> tuple[float | None, float | None]:
        """(bb/100, half-width of its 95% confidence interval) over the samples (hands, or
        mirrored pairs of `hands_per_sample` hands); None where there are too few samples."""
        samples = self.hands // hands_per_sample
        if samples == 0:
            return None, None
        mean = self.units / samples
        scale = 100 / hands_per_sample
        if samples < 2:
            return mean * scale, None
        var = max(0.0, (self.units_sq - samples * mean * mean) / (samples - 1))
        return mean * scale, Z95 * math.sqrt(var / samples) * scale


class LadderQuery(Request):
    participant_id: str | None = None  # None: every participant


class LadderRow(Message):
    participant_id: str
    opponents: tuple[str, ...]  # the other participants dealt in those hands
    tally: Tally


class LadderRows(Message):
    rows: list[LadderRow]


class MatchTerms(Message):
    """What a match table plays: `deals` deals, each twice with the seats swapped."""

    match_id: MatchId
    owner_id: Annotated[str, Field(min_length=1, max_length=200)]
    participant_id: Annotated[str, Field(min_length=1, max_length=200)]  # the owner's agent
    opponent_id: Annotated[str, Field(min_length=1, max_length=200)]  # the Felt bot
    level: Level
    deals: Annotated[int, Field(ge=1, le=10**6)]


class CreateMatch(Request):
    terms: MatchTerms


class MatchQuery(Request):
    match_id: MatchId


class MatchResult(Message):
    """A match as it stands: the agent's result in bb/100 over the mirrored pairs played."""

    terms: MatchTerms
    table_id: str
    status: Literal["running", "finished"]
    created_at: datetime
    hands_played: int
    net_chips: int
    bb_per_100: float | None = None
    ci95: float | None = None  # half-width of the 95% confidence interval


class ReserveBot(Request):
    match_id: MatchId
    level: Level


class PlayMatch(Request):
    match: MatchResult  # the table's answer: its terms name the bot


class ReleaseBot(Request):
    match_id: MatchId


class MatchBot(Message):
    """A match's bot as the bots service holds it: `participant_id` None when none is held."""

    match_id: MatchId
    participant_id: str | None
    state: Literal["reserved", "playing", "released"]
