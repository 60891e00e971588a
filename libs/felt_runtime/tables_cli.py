"""`felt table list|create|close`: operators manage tables at run time over the bus
(`TABLE_LIST`, `TABLE_CREATE`, `TABLE_CLOSE`), in the room `FELT_NATS_URL` / `FELT_PORT_OFFSET`
point at. A refusal prints one line with its code (and the field at fault) and exits 1."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from typing import Any

from felt_contracts import subjects
from felt_contracts.base import Request
from felt_contracts.table import CloseTable, CreateTable, ListTables, TableConfig, TableList, TableSummary
from felt_runtime.operator_cli import answer, ask, json_object


def add_parser(sub: Any) -> None:
    table = sub.add_parser("table", help="list, create or close tables of the running room")
    verbs = table.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="every table: id, profile, players, hands played, limits, closed")
    create = verbs.add_parser("create", help="create a table from a TableConfig (JSON text or @file)")
    create.add_argument("config", help='e.g. \'{"table_id": "t1", "rules_version": "nlhe-1", "small_blind": 1, ...}\'')
    create.add_argument("--max-hands", type=int, help="close after this many settled hands")
    create.add_argument("--duration", type=float, metavar="SECONDS", help="close this long from now")
    close = verbs.add_parser("close", help="close a table after the hand in progress (cashes every seat out)")
    close.add_argument("table_id")


def run(args: argparse.Namespace) -> int:
    return answer(f"felt table {args.verb}", lambda: _request(args), _send, _lines)


def _request(args: argparse.Namespace) -> Request:
    if args.verb == "create":
        return CreateTable(config=_config(args))
    if args.verb == "close":
        return CloseTable(table_id=args.table_id)
    return ListTables()


def _config(args: argparse.Namespace) -> TableConfig:
    raw = json_object(args.config, TableConfig)
    if args.max_hands is not None:
        raw["max_hands"] = args.max_hands
    if args.duration is not None:
        if args.duration <= 0:
            raise ValueError("--duration must be positive seconds")
        raw["closes_at"] = (datetime.now(UTC) + timedelta(seconds=args.duration)).isoformat()
    return TableConfig.model_validate(raw)


async def _send(request: Request) -> TableSummary | TableList:
    if isinstance(request, CreateTable):
        return await ask(subjects.TABLE_CREATE, request, TableSummary)
    if isinstance(request, CloseTable):
        return await ask(subjects.TABLE_CLOSE, request, TableSummary, timeout=30)
    return await ask(subjects.TABLE_LIST, request, TableList)


def _lines(result: TableSummary | TableList) -> list[str]:
    return [_line(t) for t in (result.tables if isinstance(result, TableList) else [result])]


def _line(t: TableSummary) -> str:
    c = t.config
    limits = [f"max_hands={c.max_hands}"] if c.max_hands else []
    limits += [f"closes_at={c.closes_at.isoformat()}"] if c.closes_at else []
    state = "closed" if t.closed else "hand running" if t.hand_running else "open"
    return " ".join([c.table_id, c.rules_version, f"players={t.players}", f"hands={t.hands_played}", *limits, state])
