"""`felt tournament create|list|cancel`: operators manage tournaments at run time over the bus
(`TOURNAMENT_CREATE`, `TOURNAMENT_LIST`, `TOURNAMENT_CANCEL`), in the room `FELT_NATS_URL` /
`FELT_PORT_OFFSET` point at. A refusal prints one line with its code (and the field at fault
with the reason) and exits 1."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from felt_contracts import subjects
from felt_contracts.tournament import (
    CancelTournament,
    CreateTournament,
    ListTournaments,
    TournamentDefinition,
    TournamentList,
    TournamentView,
)
from felt_runtime.bus import BusError
from felt_runtime.tables_cli import ask, one_line


def add_parser(sub: Any) -> None:
    tournament = sub.add_parser("tournament", help="create, list or cancel tournaments of the running room")
    verbs = tournament.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="every tournament: id, game, buy-in, status, entrants, prize pool")
    create = verbs.add_parser("create", help="create a tournament from a TournamentDefinition (JSON text or @file)")
    create.add_argument("definition", help="docs/tournaments.md has an example")
    cancel = verbs.add_parser("cancel", help="cancel a tournament that has not finished (refunds every entry)")
    cancel.add_argument("tournament_id")


def run(args: argparse.Namespace) -> int:
    try:
        if args.verb == "create":
            request: Any = CreateTournament(definition=_definition(args.definition))
        elif args.verb == "cancel":
            request = CancelTournament(tournament_id=args.tournament_id)
        else:
            request = ListTournaments()
    except (ValueError, OSError) as exc:  # includes pydantic's ValidationError
        print(f"felt tournament {args.verb}: {one_line(exc)}")
        return 1
    try:
        result = asyncio.run(_send(request))
    except BusError as exc:
        field, reason = exc.details.get("field"), exc.details.get("reason")
        where = f" (field {field}{', ' + reason if reason else ''})" if field else ""
        print(f"felt tournament {args.verb}: {exc.code.value}: {exc.message}{where}")
        return 1
    for view in result.tournaments if isinstance(result, TournamentList) else [result]:
        print(_line(view))
    return 0


def _definition(text: str) -> TournamentDefinition:
    raw = json.loads(Path(text[1:]).read_text() if text.startswith("@") else text)
    if not isinstance(raw, dict):
        raise ValueError("the definition must be a JSON object (a TournamentDefinition)")
    return TournamentDefinition.model_validate(raw)


async def _send(request: Any) -> TournamentView | TournamentList:
    if isinstance(request, CreateTournament):
        return await ask(subjects.TOURNAMENT_CREATE, request, TournamentView)
    if isinstance(request, CancelTournament):
        return await ask(subjects.TOURNAMENT_CANCEL, request, TournamentView, timeout=30)
    return await ask(subjects.TOURNAMENT_LIST, request, TournamentList)


def _line(t: TournamentView) -> str:
    d = t.definition
    start = f"starts_at={d.starts_at.isoformat()}" if d.starts_at else "sit-and-go"
    return " ".join(
        [
            d.tournament_id,
            d.rules_version,
            f"buy_in={d.buy_in}",
            start,
            t.status,
            f"entrants={t.entrants}/{d.max_entrants}",
            f"prize_pool={t.prize_pool}",
        ]
    )
