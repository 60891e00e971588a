"""REST fuzzing for state: schema-driven requests (schemathesis, valid and invalid, with the
owner's token, an agent's key or nothing) against every operation, aimed half the time at a real
table where the agent sits and at the real agent. No answer is a 5xx, and a request that is
refused (4xx) changes nothing: the ledger, the table, the owner's limits and the identity rows
are compared before and after each one. (tests/gateway/test_zz_openapi.py checks response
shapes; this checks that refusals are side-effect free.)"""

from __future__ import annotations

import asyncio
import random
import time

import schemathesis
import sqlalchemy as sa
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from sqlalchemy.ext.asyncio import create_async_engine

from felt_contracts import subjects
from felt_contracts.table import GetView, TableRequest, TableResult
from felt_gateway.store import api_keys, participants, tokens
from felt_runtime.bus import call
from felt_wallet.store import ledger
from tests.support.gateway import create_table
from tests.security.conftest import agent, owner

SECONDS = 30.0
#: these end the fuzzer's own credentials (their refusals are covered in tests/security), or wait
#: 30 s on the bots service, which this room does not run (a match's refusals: tests/bots/test_ladder.py)
SKIP = {
    ("POST", "/api/v2/accounts/logout"),
    ("POST", "/api/v2/accounts/agents/{agent_id}/key"),
    ("DELETE", "/api/v2/accounts/agents/{agent_id}/key"),
    ("POST", "/api/v2/poker/matches"),
}


async def test_refused_requests_change_nothing(room, http, bus) -> None:
    me = await owner(http)
    bot = await agent(http, me)
    table_id = await create_table(bus)
    assert (
        await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=bot["headers"])
    ).status_code == 200
    engine = create_async_engine(room.stack.database_url)

    async def rows() -> tuple:
        async with engine.connect() as conn:
            money = sorted((await conn.execute(sa.select(ledger.c.key, ledger.c.balance))).all())
            people = (await conn.execute(sa.select(sa.func.count()).select_from(participants))).scalar_one()
            keys = sorted((await conn.execute(sa.select(api_keys.c.id, api_keys.c.revoked_at))).all())
            logins = (await conn.execute(sa.select(sa.func.count()).select_from(tokens))).scalar_one()
        return money, people, keys, logins

    async def snapshot() -> tuple:
        """The database's rows, the table and the owner's limits, read side by side."""
        (money, people, keys, logins), result, answer = await asyncio.gather(
            rows(),
            call(
                bus, subjects.table_command(table_id), TableRequest(table_id=table_id, command=GetView()), TableResult
            ),
            http.get("/api/v2/poker/limits", headers=me["headers"]),
        )
        v, limits = result.view, answer.json()
        # caps, freezes and pending changes; not what is used: the counters follow the wallet's
        # transfers a little later (an earlier accepted request's may land between two snapshots),
        # and a refused request that moved chips shows in the ledger above
        for scope in ("owner", "participant", "credential"):
            for lim in (limits.get(scope) or {}).get("limits", {}).values():
                lim.pop("headroom", None)
                lim.pop("used", None)
        limits.pop("now", None)
        # not the table's seq: a refused `start` still marks the caller ready (events `ready`,
        # `start_refused`), by design
        return (
            money,
            people,
            keys,
            logins,
            v.hand is not None,
            [(s.seat, s.participant_id, s.stack) for s in v.seats],
            limits,
        )

    schema = schemathesis.openapi.from_url(f"{room.url}/openapi.json")
    operations = [r.ok() for r in schema.get_all_operations()]
    operations = [op for op in operations if (op.method.upper(), op.path) not in SKIP]
    rng = random.Random(16)
    budget = SECONDS / len(operations)
    refused, changed, errors = 0, [], []
    creds = [me["headers"], bot["headers"], {}]
    calls = []
    for n, op in enumerate(operations):
        started = time.monotonic()
        strategy = op.as_strategy(GenerationMode.POSITIVE) | op.as_strategy(GenerationMode.NEGATIVE)

        @given(case=strategy)
        @settings(
            max_examples=25,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def collect(case) -> None:  # called at once, below: the loop's variables are this operation's
            if time.monotonic() - started > budget or len(calls) > 2000:  # noqa: B023 - run in this iteration
                return
            if case.path_parameters and rng.random() < 0.5:
                real = {"table_id": table_id, "agent_id": bot["participantId"]}
                case.path_parameters = {k: real.get(k, v) for k, v in case.path_parameters.items()}
            calls.append((op, case, creds[(n + len(calls)) % 3]))  # noqa: B023 - run in this iteration

        collect()
    before = None
    for op, case, headers in calls:
        before = before or await snapshot()
        r = await asyncio.to_thread(
            case.call, base_url=room.url, headers={**(case.headers or {}), **headers}, timeout=30
        )
        after = None
        if r.status_code >= 500:
            errors.append(f"{op.method.upper()} {op.path} -> {r.status_code} {r.text[:200]}")
        elif r.status_code >= 400:
            refused += 1
            if (after := await snapshot()) != before:
                changed.append(
                    f"{op.method.upper()} {op.path} -> {r.status_code}: {[i for i, (a, b) in enumerate(zip(before, after)) if a != b]}"
                )
        before = after  # the state after a refusal is the next call's before; after any other answer, read again
    await engine.dispose()
    assert errors == [] and changed == [], (errors, changed)
    assert refused >= 100 and len({op.path for op, _, _ in calls}) >= 20
