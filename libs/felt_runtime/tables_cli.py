"""`felt table list|create|close`: operators manage tables at run time over the bus
(`TABLE_LIST`, `TABLE_CREATE`, `TABLE_CLOSE`), in the room `FELT_NATS_URL` / `FELT_PORT_OFFSET`
point at. A refusal prints one line with its code (and the field at fault) and exits 1."""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from felt_contracts import subjects
from felt_contracts.base import Request
from felt_contracts.table import CloseTable, CreateTable, ListTables, TableConfig, TableList, TableSummary
from felt_contracts.access import OPERATOR
from felt_runtime.bus import BusError, call, make_broker
from felt_runtime.nats_access import connect_options
from felt_runtime.settings import Settings

M = TypeVar("M", bound=BaseModel)


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
    try:
        if args.verb == "create":
            request: Any = CreateTable(config=_config(args))
        elif args.verb == "close":
            request = CloseTable(table_id=args.table_id)
        else:
            request = ListTables()
    except (ValueError, OSError) as exc:  # includes pydantic's ValidationError
        print(f"felt table {args.verb}: {one_line(exc)}")
        return 1
    try:
        result = asyncio.run(_send(request))
    except BusError as exc:
        field = exc.details.get("field")
        print(f"felt table {args.verb}: {exc.code.value}: {exc.message}" + (f" (field {field})" if field else ""))
        return 1
    if isinstance(result, TableList):
        for t in result.tables:
            print(_line(t))
    else:
        print(_line(result))
    return 0


def _config(args: argparse.Namespace) -> TableConfig:
    text = Path(args.config[1:]).read_text() if args.config.startswith("@") else args.config
    raw = json.loads(text)
    if not isinstance(raw, dict):
        raise ValueError("the config must be a JSON object (a TableConfig)")
    if args.max_hands is not None:
        raw["max_hands"] = args.max_hands
    if args.duration is not None:
        if args.duration <= 0:
            raise ValueError("--duration must be positive seconds")
        raw["closes_at"] = (datetime.now(UTC) + timedelta(seconds=args.duration)).isoformat()
    return TableConfig.model_validate(raw)


def one_line(exc: Exception) -> str:
    """A refused input (a pydantic error: its first field) as one line."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"malformed: field {'.'.join(str(p) for p in first['loc']) or '(config)'}: {first['msg']}"
    return f"malformed: {exc}"


async def ask(subject: str, request: Request, result: type[M], timeout: float = 5.0) -> M:
    """One request to the running room (`FELT_NATS_URL`) as the operator, on a connection of its own."""
    settings = Settings()
    broker = make_broker(settings.nats_url, "cli", **connect_options(settings, OPERATOR))
    await broker.connect()
    try:
        return await call(broker, subject, request, result, timeout=timeout)
    finally:
        await broker.stop()


async def _send(request: Any) -> TableSummary | TableList:
    if isinstance(request, CreateTable):
        return await ask(subjects.TABLE_CREATE, request, TableSummary)
    if isinstance(request, CloseTable):
        return await ask(subjects.TABLE_CLOSE, request, TableSummary, timeout=30)
    return await ask(subjects.TABLE_LIST, request, TableList)


def _line(t: TableSummary) -> str:
    c = t.config
    limits = [f"max_hands={c.max_hands}"] if c.max_hands else []
    limits += [f"closes_at={c.closes_at.isoformat()}"] if c.closes_at else []
    state = "closed" if t.closed else "hand running" if t.hand_running else "open"
    return " ".join([c.table_id, c.rules_version, f"players={t.players}", f"hands={t.hands_played}", *limits, state])
