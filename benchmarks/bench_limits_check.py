"""CPU per limits check, in process over a SQLite file (the check's reads; no bus): the four
kinds (buy-in, wager, start_hand, continue_session) in turn, best of 5 rounds of 500; with
`--history N` the owner has N closed sessions behind it (a long-lived owner: the bots'); with
`--holds N` N live start_hand holds of the owner's other agents (an operator running many agents
at once, as `make load` does).

    .venv/bin/python benchmarks/bench_limits_check.py [--history 20000] [--holds 1000]

Run it on two trees side by side (one with `PYTHONPATH` pointing at the other) to compare."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

from felt_contracts.limits import CheckKind, LimitName, LimitsCheck
from felt_limits import store
from felt_limits.clock import SystemClock
from felt_limits.policy import Limits
from felt_limits.settings import LimitsSettings
from felt_runtime.db import create_engine, migrate

ROUNDS, CHECKS = 5, 500


async def main(history: int, holds: int) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{Path(tempfile.mkdtemp()) / 'limits.sqlite'}")
    await migrate(engine, "felt_limits", "limits")
    if history:
        closed = dict(bought_in=100, cashed_out=100, wager=10, hands=5, closed=True)
        sessions = [
            dict(session_id=f"old{i}", owner_id="o1", account_id=f"p{i % 50}", **closed) for i in range(history)
        ]
        async with engine.begin() as conn:
            await conn.execute(sa.insert(store.sessions), sessions)
    limits = Limits(engine, SystemClock(), LimitsSettings(hold_seconds=3600))
    wants = {LimitName.SESSION_HANDS: 1, LimitName.DAILY_WAGER: 2, LimitName.SESSION_WAGER: 2}
    for i in range(holds):  # other agents of the owner, each in a hand not counted yet
        limits.holds.add_hand("o1", f"q{i}", f"sq{i}", f"h{i}", wants)

    def ask(kind: CheckKind, amount: int | None = None, session_id: str | None = "s1") -> LimitsCheck:
        return LimitsCheck(kind=kind, owner_id="o1", participant_id="p1", amount=amount, session_id=session_id)

    checks = [
        ask(CheckKind.BUY_IN, 100, None),
        ask(CheckKind.WAGER, 2),
        ask(CheckKind.START_HAND, 1),
        ask(CheckKind.CONTINUE_SESSION),
    ]
    for check in checks:
        await limits.check(check)
    best = float("inf")
    for _ in range(ROUNDS):
        cpu = time.process_time()  # every thread of the process: the database thread too
        for i in range(CHECKS):
            await limits.check(checks[i % len(checks)])
        best = min(best, (time.process_time() - cpu) / CHECKS)
    print(
        f"{best * 1e3:.3f} ms CPU per check (best of {ROUNDS} rounds of {CHECKS}; {history} closed sessions,"
        f" {holds} live holds)"
    )
    await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--history", type=int, default=0, help="closed sessions of the owner before the checks")
    parser.add_argument("--holds", type=int, default=0, help="live start_hand holds of the owner's other agents")
    args = parser.parse_args()
    asyncio.run(main(args.history, args.holds))
