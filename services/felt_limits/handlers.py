"""Bus handlers: the request/reply commands and queries, and the transfer-event consumer.

`check` is on the path of every table action that takes new risk (a join, each deal's
`start_hand` per seat, each voluntary wager, `continue_session` per seat after a settlement), so
its checks run concurrently (a holding check still waits for the other holding checks of its
owner, `Holds.lock`): answered one at a time, the checks a hand's end sends together for every
seat would queue behind each other and behind the other tables'. The rest are rare (owners,
operators, the lobby) and run one at a time: each write is one transaction, and on SQLite two
writing transactions at once may refuse each other instead of waiting."""

from __future__ import annotations

import logging
from typing import cast

from faststream import AckPolicy
from faststream.nats import JStream, NatsBroker, NatsMessage, PullSub
from nats.js.api import ConsumerConfig, DeliverPolicy
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.limits import (
    CapChange,
    FreezeState,
    LimitsCheck,
    LimitsDecision,
    LimitsFreeze,
    LimitsGet,
    LimitsSessionEnd,
    LimitsSetCap,
    LimitsState,
    SessionEnded,
)
from felt_contracts.wallet import TransferEvent
from felt_limits.policy import Limits
from felt_runtime.nats_access import pull_inbox
from felt_runtime.bus import declare_contract, responder

log = logging.getLogger("felt.limits")

#: checks in flight at once (each holds a database connection while it reads; more wait for one)
CHECK_CONCURRENCY = 256


def register(broker: NatsBroker, limits: Limits) -> None:
    q = subjects.LIMITS_QUEUE

    @responder(broker, subjects.LIMITS_CHECK, LimitsCheck, queue=q, concurrency=CHECK_CONCURRENCY)
    async def check(req: LimitsCheck) -> LimitsDecision:
        """Ask before new risk: allowed, or `limit_exceeded` / `frozen` with details."""
        return await limits.check(req)

    @responder(broker, subjects.LIMITS_GET, LimitsGet, queue=q, concurrency=1)
    async def get(req: LimitsGet) -> LimitsState:
        """Caps in force, pending raises, counters and headroom of an owner (and participant, session)."""
        return await limits.get(req)

    @responder(broker, subjects.LIMITS_SET_CAP, LimitsSetCap, queue=q, concurrency=1)
    async def set_cap(req: LimitsSetCap) -> CapChange:
        """Lower a cap at once, or queue a raise behind the cool-off."""
        return await limits.set_cap(req, subjects.LIMITS_SET_CAP)

    @responder(broker, subjects.LIMITS_FREEZE, LimitsFreeze, queue=q, concurrency=1)
    async def freeze(req: LimitsFreeze) -> FreezeState:
        """Freeze or unfreeze an owner or participant: no new risk while frozen."""
        return await limits.freeze(req, subjects.LIMITS_FREEZE)

    @responder(broker, subjects.LIMITS_SESSION_END, LimitsSessionEnd, queue=q, concurrency=1)
    async def session_end(req: LimitsSessionEnd) -> SessionEnded:
        """A session closed without a cash-out: release its reserved exposure."""
        return await limits.end_session(req, subjects.LIMITS_SESSION_END)

    declare_contract(subjects.WALLET_TRANSFER_EVENTS, TransferEvent)
    policy = DeliverPolicy.ALL if limits.settings.deliver_policy == "all" else DeliverPolicy.NEW

    @broker.subscriber(
        subjects.WALLET_TRANSFER_EVENTS,
        stream=JStream(subjects.WALLET_EVENTS_STREAM, declare=False),
        durable=limits.settings.consumer,
        inbox_prefix=pull_inbox(broker),
        deliver_policy=policy,
        pull_sub=PullSub(batch_size=200, timeout=1.0, batch=True),  # what is there, up to 200
        config=ConsumerConfig(ack_wait=limits.settings.ack_wait_seconds),  # redelivery after a crash
        ack_policy=AckPolicy.NACK_ON_ERROR,
        title="wallet transfer events -> limits counters",
    )
    async def on_transfers(msg: NatsMessage) -> None:
        """Apply a pulled batch of wallet transfers to the counters in one transaction (once per
        event id); a failure nacks the whole batch for redelivery."""
        events = []
        for body in cast(list[bytes], msg.body):  # a batch's body is its raw bodies (FastStream types it bytes)
            try:
                events.append(TransferEvent.model_validate_json(body))
            except ValidationError as exc:  # a poison message is dropped (acked), not retried forever
                log.error("malformed transfer event dropped", extra={"errors": str(exc)[:500]})
        await limits.count(events)  # raising: nack, redelivered later
