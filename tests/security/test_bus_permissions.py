"""Who may say what on the bus, on the room's real NATS started with the generated users and
permissions (`felt_runtime.nats_access`, from `felt_contracts.access`): a service's credentials
cannot ask for what the declaration does not give it, the server says so to the sender, and
nothing reaches the subject's owner."""

from __future__ import annotations

import asyncio
import logging

import nats
import pytest

from felt_contracts import access, subjects
from felt_contracts.base import Request
from felt_runtime.bus import make_broker
from felt_runtime.nats_access import connect_options
from felt_runtime.settings import Settings
from tests.security.conftest import SECRETS, Room
from tests.support.servers import connected_as, passwords_of, plain_url


def concrete(subject: str) -> str:
    """A subject a client would send for a declared pattern (`*` and `>` filled in)."""
    return subject.replace(".>", ".t1.x").replace("*", "t1")


@pytest.fixture(autouse=True)
def remember_passwords(room: Room) -> None:
    """The NATS passwords are secrets too: test_zz_logs checks no process ever wrote one."""
    SECRETS.update(passwords_of(room.nats_url).values())


async def witness(room: Room, *watched: str) -> tuple[nats.aio.client.Client, list[str]]:
    """A connection of the tests (allowed everything) that records what arrives on `watched`."""
    seen: list[str] = []
    nc = await nats.connect(room.nats_url)

    async def record(msg: nats.aio.msg.Msg) -> None:
        seen.append(msg.subject)

    for subject in watched:
        await nc.subscribe(subject, cb=record)
    await nc.flush()
    return nc, seen


async def test_the_gateway_can_neither_move_chips_nor_forge_a_transfer_event(room: Room) -> None:
    chips, forged = subjects.WALLET_COMMIT, subjects.WALLET_TRANSFER_EVENTS
    watcher, seen = await witness(room, chips, forged)
    try:
        async with connected_as(room.nats_url, "gateway") as gateway:
            await gateway.nc.publish(chips, b'{"amount": 1000000}')
            await gateway.nc.publish(forged, b'{"amount": 1000000}')
            assert await gateway.refused(chips)
            assert await gateway.refused(forged)
            # what a client's request becomes is allowed: the same connection, no refusal
            await gateway.nc.publish(subjects.table_command("t1"), b"{}")
            assert not await gateway.refused(subjects.table_command("t1"), timeout=0.5)
        await watcher.flush()
        assert seen == []
    finally:
        await watcher.close()


async def test_the_bots_may_send_nothing_to_the_table_the_wallet_or_limits(room: Room) -> None:
    owned = {"table", "wallet", "limits"}
    targets = [concrete(subject) for req in access.REQUESTS if req.served_by in owned for subject in req.subjects]
    targets += [concrete(subject) for ev in access.EVENTS if ev.published_by in owned for subject in ev.subjects]
    assert subjects.WALLET_SETTLE in targets and subjects.LIMITS_CHECK in targets
    watcher, seen = await witness(room, *targets)
    try:
        async with connected_as(room.nats_url, "bots") as bots:
            for subject in targets:
                await bots.nc.publish(subject, b"{}")
            refused = await asyncio.gather(*(bots.refused(subject) for subject in targets))
            assert dict(zip(targets, refused, strict=True)) == dict.fromkeys(targets, True)
            # its own subjects it serves
            await bots.nc.subscribe(subjects.BOTS_ADD)
            assert not await bots.refused(subjects.BOTS_ADD, timeout=0.5)
        await watcher.flush()
        assert seen == []
    finally:
        await watcher.close()


async def test_nobody_reads_another_identitys_replies(room: Room) -> None:
    async with connected_as(room.nats_url, "gateway") as gateway:
        await gateway.nc.subscribe("_INBOX.table.>")
        await gateway.nc.subscribe("_INBOX.>")
        assert await gateway.refused("_INBOX.table.>")
        assert await gateway.refused("_INBOX.>")


async def test_a_refused_request_is_logged_by_the_sender_and_moves_nothing(
    room: Room, caplog: pytest.LogCaptureFixture
) -> None:
    """The gateway's own connection (as the service makes it) asks the wallet to settle: the
    server refuses, the request gets no answer, and the process logs the refusal."""
    settings = Settings(
        nats_url=plain_url(room.nats_url),
        nats_user="gateway",
        nats_password=passwords_of(room.nats_url)["gateway"],
    )
    broker = make_broker(settings.nats_url, "gateway", **connect_options(settings, "gateway"))
    await broker.connect()
    try:
        with caplog.at_level(logging.ERROR, logger="felt.bus.access"):
            with pytest.raises((nats.errors.TimeoutError, nats.errors.NoRespondersError)):
                await broker.connection.request(
                    subjects.WALLET_SETTLE, Request().model_dump_json().encode(), timeout=1.0
                )
            await broker.connection.flush()
            for _ in range(100):
                if "felt.wallet.settle" in caplog.text:
                    break
                await asyncio.sleep(0.05)
        assert "bus permission denied" in caplog.text and "felt.wallet.settle" in caplog.text
    finally:
        await broker.stop()
