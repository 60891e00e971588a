"""`felt tournament create|list|cancel`: operators manage tournaments at run time over the bus
(`TOURNAMENT_CREATE`, `TOURNAMENT_LIST`, `TOURNAMENT_CANCEL`), in the room `FELT_NATS_URL` /
`FELT_PORT_OFFSET` point at. A refusal prints one line with its code (and the field at fault
with the reason) and exits 1."""

from __future__ import annotations

import argparse
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
from felt_contracts.base import Request
from felt_runtime.operator_cli import answer, ask, json_object


def add_parser(sub: Any) -> None:
    tournament = sub.add_parser("tournament", help="create, list or cancel tournaments of the running room")
    verbs = tournament.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="every tournament: id, game, buy-in, status, entrants, prize pool")
    create = verbs.add_parser("create", help="create a tournament from a TournamentDefinition (JSON text or @file)")
    create.add_argument("definition", help="docs/tournaments.md has an example")
    cancel = verbs.add_parser("cancel", help="cancel a tournament that has not finished (refunds every entry)")
    cancel.add_argument("tournament_id")


def run(args: argparse.Namespace) -> int:
    return answer(f"felt tournament {args.verb}", lambda: _request(args), _send, _lines)


def _request(args: argparse.Namespace) -> Request:
    if args.verb == "create":
        return CreateTournament(
            definition=TournamentDefinition.model_validate(json_object(args.definition, TournamentDefinition))
        )
    if args.verb == "cancel":
        return CancelTournament(tournament_id=args.tournament_id)
    return ListTournaments()


async def _send(request: Request) -> TournamentView | TournamentList:
    if isinstance(request, CreateTournament):
        return await ask(subjects.TOURNAMENT_CREATE, request, TournamentView)
    if isinstance(request, CancelTournament):
        return await ask(subjects.TOURNAMENT_CANCEL, request, TournamentView, timeout=30)
    return await ask(subjects.TOURNAMENT_LIST, request, TournamentList)


def _lines(result: TournamentView | TournamentList) -> list[str]:
    return [_line(t) for t in (result.tournaments if isinstance(result, TournamentList) else [result])]


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
