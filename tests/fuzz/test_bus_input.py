"""Bad input on the bus: malformed and hostile messages published straight to every request
subject of every service (wallet, limits, timer, table, chat, tournament, each one's health) get an error
reply with a stable code — never silence, never `internal` — and leave every service healthy,
the ledger unchanged and the tables as they were."""

from __future__ import annotations

import json

import nats
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from felt_contracts import subjects
from felt_wallet.store import ledger
from tests.support.gateway import create_table

SERVICES = ("wallet", "limits", "timer", "table", "chat", "tournament", "gateway")

GARBAGE: list[bytes] = [
    b"",
    b"not json",
    b"\xff\xfe\x00binary",
    b"null",
    b"[]",
    b"42",
    b'"str"',
    b"{",
    b"{}",
    b"[" * 50_000 + b"]" * 50_000,  # deep nesting
    json.dumps({"x": "y" * 600_000}).encode(),  # large
    json.dumps({"message_id": 5, "correlation_id": [], "amount": "ten", "account_id": {"$ne": None}}).encode(),
    json.dumps({"message_id": "m", "amount": -1, "account_id": "a", "hand_id": "h", "table_id": "t"}).encode(),
    json.dumps({"message_id": "m", "amount": 10**40, "account_id": "a" * 10_000}).encode(),
    json.dumps({"command": {"type": "teleport"}, "table_id": "x"}).encode(),
]


def request_subjects(table_id: str) -> list[str]:
    """Every request subject a service of the room answers (the bots do not run here)."""
    fixed = sorted(
        {
            v
            for k, v in vars(subjects).items()
            if k.isupper()
            and isinstance(v, str)
            and v.startswith("felt.")
            and not v.startswith(("felt.evt.", "felt.bots."))
        }
    )
    return (
        fixed
        + [subjects.table_command(table_id), subjects.table_command("nosuchtable")]
        + [subjects.health(s) for s in SERVICES]
    )


async def ledger_snapshot(url: str) -> dict[str, int]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return {r.key: r.balance for r in (await conn.execute(sa.select(ledger.c.key, ledger.c.balance))).all()}
    finally:
        await engine.dispose()


async def test_malformed_and_hostile_bus_messages_get_error_replies_and_change_nothing(room, bus) -> None:
    table_id = await create_table(bus)
    nc = await nats.connect(room.nats_url, max_reconnect_attempts=0)
    before = await ledger_snapshot(room.stack.database_url)
    tables_before = (await nc.request(subjects.TABLE_LIST, b"{}", timeout=5)).data
    targets = request_subjects(table_id)
    assert len(targets) >= 25, targets
    silent, internal, accepted = [], [], []
    try:
        for subject in targets:
            for payload in GARBAGE:
                try:
                    reply = await nc.request(subject, payload, timeout=5)
                except Exception as exc:  # noqa: BLE001 - no reply at all is the failure here
                    silent.append(f"{subject} {payload[:30]!r}: {type(exc).__name__}")
                    continue
                body = json.loads(reply.data)
                if body.get("ok"):
                    if payload != b"{}":  # a query with every field defaulted is a fair question
                        accepted.append(f"{subject} {payload[:30]!r}")
                elif body["error"]["code"] == "internal":
                    internal.append(f"{subject} {payload[:30]!r}: {body['error']['message']}")
        assert silent == [] and internal == [] and accepted == [], (silent, internal, accepted)
        for service in SERVICES:  # every service still answers at once
            health = json.loads((await nc.request(subjects.health(service), b"{}", timeout=5)).data)
            assert health["ok"] and health["result"]["status"] == "ok", (service, health)
            assert room.stack.procs.get(service, room.stack.gateway).process.poll() is None
        assert await ledger_snapshot(room.stack.database_url) == before
        assert (await nc.request(subjects.TABLE_LIST, b"{}", timeout=5)).data == tables_before
    finally:
        await nc.close()
