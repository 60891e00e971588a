"""A benchmark match made by the gateway in three steps, so the bots service never sends to the
table (docs/operations.md, "Who may say what on the bus"): a bot of the level held for the match
(bots), the match's table naming it (table), the bot the table's terms name seated (bots).

Every step is idempotent per match id, so a retried start (the same `Idempotency-Key`) ends in
the same match and bot whatever step the first try reached. A table that refused the match, or did
not answer, has the hold released at once; a gateway that died between the steps leaves a hold
that lapses by itself (`FELT_BOTS_MATCH_HOLD_SECONDS`)."""

from __future__ import annotations

import contextlib
from typing import Any

from felt_contracts import subjects
from felt_contracts.bots import Level
from felt_contracts.ladder import CreateMatch, MatchBot, MatchResult, MatchTerms, PlayMatch, ReleaseBot, ReserveBot
from felt_runtime.bus import BusError

#: how long the bots service may take to hold or seat a bot (it may sign the bot up first)
BOT_SECONDS = 30.0


async def make(bus: Any, match_id: str, owner_id: str, participant_id: str, level: Level, hands: int) -> MatchResult:
    """The match's table with its bot seated (the same match again: as it stands)."""
    held = await bus.call(
        subjects.BOTS_MATCH_RESERVE, ReserveBot(match_id=match_id, level=level), MatchBot, timeout=BOT_SECONDS
    )
    assert held.participant_id is not None
    terms = MatchTerms(
        match_id=match_id,
        owner_id=owner_id,
        participant_id=participant_id,
        opponent_id=held.participant_id,
        level=level,
        deals=hands // 2,
    )
    try:
        result: MatchResult = await bus.call(subjects.TABLE_MATCH_CREATE, CreateMatch(terms=terms), MatchResult)
    except BusError:
        with contextlib.suppress(BusError):  # else the hold lapses by itself
            await bus.call(subjects.BOTS_MATCH_RELEASE, ReleaseBot(match_id=match_id), MatchBot)
        raise
    try:
        await bus.call(subjects.BOTS_MATCH_PLAY, PlayMatch(match=result), MatchBot, timeout=BOT_SECONDS)
    except BusError as exc:
        message = f"{exc.message}: the match's table is made, its bot not seated (the same Idempotency-Key seats it)"
        raise BusError(exc.code, message, **{**exc.details, "match_id": match_id}) from None
    return result
