"""Limits test helpers: a clock the test moves (through a file the service reads), a
JetStream publisher of wallet TransferEvents, and polling of LIMITS_GET."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import nats
import pytest
from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.limits import LimitName, LimitsGet, LimitsSetCap, LimitsState, Scope
from felt_contracts.wallet import TransferEvent, TransferKind
from felt_runtime.streams import WALLET_EVENTS, ensure
from felt_runtime.bus import call
from tests.support.services import ServiceRunner
from tests.support.waiting import eventually

COOLOFF = 24 * 3600
#: Generous defaults; each test lowers the cap it studies (lowering applies at once).
DEFAULTS = {
    "felt_limits_default_daily_buy_in": "100000",
    "felt_limits_default_daily_wager": "100000",
    "felt_limits_default_reserved_exposure": "100000",
    "felt_limits_default_session_hands": "1000",
    "felt_limits_default_session_wager": "100000",
    "felt_limits_raise_cooloff_seconds": str(COOLOFF),
}
START = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def transfer_event(
    kind: TransferKind,
    amount: int,
    *,
    owner: str,
    account: str,
    session: str | None = None,
    hand: str | None = None,
    at: datetime | None = None,
    event_id: str | None = None,
) -> TransferEvent:
    """A wallet transfer event as limits receives it (at table `t1`; now, unless `at`)."""
    eid = event_id or uuid.uuid4().hex
    return TransferEvent(
        event_id=eid,
        transfer_id=eid,
        kind=kind,
        account_id=account,
        owner_id=owner,
        session_id=session,
        table_id="t1",
        hand_id=hand,
        amount=amount,
        at=at or datetime.now(UTC),
    )


@dataclass
class FakeClock:
    """The limits service reads "now" from this file on every request."""

    path: Path
    current: datetime = START

    def set(self, when: datetime) -> None:
        self.current = when
        self.path.write_text(when.isoformat())

    def advance(self, **delta: float) -> None:
        self.set(self.current + timedelta(**delta))

    def now(self) -> datetime:
        return self.current


@pytest.fixture(scope="module")
def shared_clock(tmp_path_factory: pytest.TempPathFactory) -> FakeClock:
    return FakeClock(tmp_path_factory.mktemp("clock") / "clock.txt")


@pytest.fixture
def clock(shared_clock: FakeClock) -> FakeClock:
    shared_clock.set(START)
    return shared_clock


class Wallet:
    """Publishes TransferEvents exactly as the wallet does: JetStream, `Nats-Msg-Id` = event id."""

    def __init__(self, js: Any, clock: FakeClock) -> None:
        self.js = js
        self.clock = clock

    async def publish(self, event: TransferEvent, msg_id: str | None = "same") -> None:
        headers = {"Nats-Msg-Id": event.event_id if msg_id == "same" else msg_id} if msg_id else None
        await self.js.publish(subjects.WALLET_TRANSFER_EVENTS, event.model_dump_json().encode(), headers=headers)

    async def send(self, kind: TransferKind, amount: int, **fields: Any) -> TransferEvent:
        """Publish a `transfer_event` (stamped with the test's clock unless `at` is given)."""
        event = transfer_event(kind, amount, **{"at": self.clock.now(), **fields})
        await self.publish(event)
        return event


@pytest.fixture
async def wallet(nats_url: str, clock: FakeClock) -> AsyncIterator[Wallet]:
    nc = await nats.connect(nats_url)
    await ensure(nc.jetstream(), WALLET_EVENTS)
    yield Wallet(nc.jetstream(), clock)
    await nc.close()


def _env(clock: FakeClock, consumer: str, **env: str) -> dict[str, str]:
    return {
        "felt_limits_clock_file": str(clock.path),
        "felt_limits_consumer": consumer,
        "felt_limits_deliver_policy": "new",
        # a pulled batch whose fetch timed out on a loaded machine comes back after ack_wait: 3 s,
        # not 10, keeps that inside the tests' 15 s waits (twice in one clean run at load 20)
        "felt_limits_ack_wait_seconds": "3",
        **DEFAULTS,
        **env,
    }


@pytest.fixture
def start_limits(services, database_url: str, clock: FakeClock) -> Callable[..., Any]:
    """A limits service of the test's own (fresh database, own durable consumer): for restarts."""
    consumer = f"limits-test-{uuid.uuid4().hex[:10]}"

    def start(**env: str) -> Any:
        return services.start("limits", database_url=database_url, **_env(clock, consumer, **env))

    return start


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def module_database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, postgres: Any) -> str:
    """A fresh database per test module (SQLite, then PostgreSQL): the 2-core machine cannot
    afford a service start per test. Tests stay independent by using fresh owner ids."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('limits-db') / 'limits.sqlite'}"
    if postgres is None:
        pytest.skip("FELT_TEST_POSTGRES_URL is not set (CI sets it to the local PostgreSQL)")
    return asyncio.run(postgres.create())


@pytest.fixture(scope="module")
def limits(
    nats_url: str,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    module_database_url: str,
    shared_clock: FakeClock,
) -> Iterator[Any]:
    """One limits service per module and database."""
    shared_clock.set(START)
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("limits-svc"))
    consumer = f"limits-test-{uuid.uuid4().hex[:10]}"
    yield runner.start("limits", database_url=module_database_url, **_env(shared_clock, consumer))
    runner.stop_all()


def ids() -> tuple[str, str, str]:
    """Fresh owner, account and session ids."""
    u = uuid.uuid4().hex[:8]
    return f"owner-{u}", f"acct-{u}", f"sess-{u}"


async def state(broker: NatsBroker, owner: str, account: str | None = None, session: str | None = None) -> LimitsState:
    return await call(
        broker, subjects.LIMITS_GET, LimitsGet(owner_id=owner, participant_id=account, session_id=session), LimitsState
    )


async def wait_for(
    broker: NatsBroker,
    owner: str,
    ok: Callable[[LimitsState], bool],
    *,
    account: str | None = None,
    session: str | None = None,
    timeout: float = 15.0,
) -> LimitsState:
    """Poll LIMITS_GET until `ok(state)`: events arrive asynchronously through JetStream."""
    return await eventually(lambda: state(broker, owner, account, session), ok, timeout=timeout, what="limits")


def used(s: LimitsState, limit: LimitName, scope: str = "owner") -> int:
    part = s.owner if scope == "owner" else s.participant
    assert part is not None
    return part.limits[limit].used


async def set_cap(
    broker: NatsBroker, scope_id: str, limit: LimitName, cap: int | None, scope: Scope = Scope.OWNER
) -> Any:
    from felt_contracts.limits import CapChange

    return await call(
        broker, subjects.LIMITS_SET_CAP, LimitsSetCap(scope=scope, scope_id=scope_id, limit=limit, cap=cap), CapChange
    )
