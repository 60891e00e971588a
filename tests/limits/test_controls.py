"""Responsible-gaming controls and robustness: lowering and freezing act at once, raising waits
for the cool-off (both sides of the instant), duplicates count once, returned bets do not reduce
gross wager, bad input gets a stable code and changes nothing."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import (
    CapChange,
    CheckKind,
    FreezeState,
    LimitName,
    LimitsFreeze,
    LimitsSetCap,
)
from felt_contracts.wallet import TransferKind as K
from felt_runtime.bus import BusError, call
from tests.limits.conftest import COOLOFF, _env, ids, set_cap, state, used, wait_for
from tests.limits.test_boundaries import check, denied

L = LimitName


async def test_lowering_a_cap_stops_new_risk_immediately(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await wallet.send(K.COMMIT, 50, owner=owner, account=acct, session=sess, hand="h1")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 50)
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 100)).allowed
    change = await set_cap(broker, owner, L.DAILY_WAGER, 100)
    assert change.applied and change.state.cap == 100 and change.state.headroom == 50
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 50)).allowed  # at the new cap
    err = await denied(broker, CheckKind.WAGER, owner, acct, sess, 51)
    assert err.details["limit"] == "daily_wager" and err.details["cap"] == 100


async def test_raising_a_cap_waits_for_the_cool_off(limits, broker, wallet, clock) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.SESSION_WAGER, 100)
    clock.advance(hours=1)
    raised = await set_cap(broker, owner, L.SESSION_WAGER, 500)
    effective_at = clock.now() + timedelta(seconds=COOLOFF)
    assert not raised.applied and raised.state.cap == 100
    assert raised.state.pending_cap == 500 and raised.state.pending_effective_at == effective_at
    shown = (await state(broker, owner)).owner.limits[L.SESSION_WAGER]
    assert shown.cap == 100 and shown.pending_cap == 500 and shown.pending_effective_at == effective_at
    clock.set(effective_at - timedelta(microseconds=1))  # one instant before: still the old cap
    assert (await denied(broker, CheckKind.WAGER, owner, acct, sess, 101)).details["cap"] == 100
    clock.set(effective_at)  # the instant itself: the raise is in force
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 500)).allowed
    assert (await denied(broker, CheckKind.WAGER, owner, acct, sess, 501)).details["cap"] == 500
    after = (await state(broker, owner)).owner.limits[L.SESSION_WAGER]
    assert after.cap == 500 and after.pending_effective_at is None


async def test_lowering_cancels_a_pending_raise_and_removing_a_cap_is_a_raise(limits, broker, clock) -> None:
    owner, _, _ = ids()
    await set_cap(broker, owner, L.DAILY_BUY_IN, 100)
    await set_cap(broker, owner, L.DAILY_BUY_IN, 1000)  # pending
    lowered = await set_cap(broker, owner, L.DAILY_BUY_IN, 80)
    assert lowered.applied and lowered.state.cap == 80 and lowered.state.pending_effective_at is None
    unlimited = await set_cap(broker, owner, L.DAILY_BUY_IN, None)  # "no cap" is the biggest raise
    assert not unlimited.applied and unlimited.state.cap == 80 and unlimited.state.pending_effective_at is not None
    clock.advance(seconds=COOLOFF)
    assert (await state(broker, owner)).owner.limits[L.DAILY_BUY_IN].cap is None


async def test_freeze_stops_new_risk_but_settlement_still_counts(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await wallet.send(K.BUY_IN, 100, owner=owner, account=acct, session=sess)
    await wallet.send(K.COMMIT, 10, owner=owner, account=acct, session=sess, hand="h1")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 10)
    frozen = await call(
        broker, subjects.LIMITS_FREEZE, LimitsFreeze(scope_id=owner, reason="self-exclusion"), FreezeState
    )
    assert frozen.frozen
    for kind, amount in (
        (CheckKind.BUY_IN, 1),
        (CheckKind.WAGER, 1),
        (CheckKind.START_HAND, None),
        (CheckKind.CONTINUE_SESSION, None),
    ):
        err = await denied(broker, kind, owner, acct, sess, amount)
        assert err.code is ErrorCode.FROZEN and err.details["reason"] == "self-exclusion"
    # the hand already accepted settles and the session cashes out: limits is not asked, and counts it
    await wallet.send(K.COMMIT, 5, owner=owner, account=acct, session=sess, hand="h1")
    await wallet.send(K.PAYOUT, 30, owner=owner, account=acct, session=sess, hand="h1")
    await wallet.send(K.CASH_OUT, 115, owner=owner, account=acct, session=sess)
    s = await wait_for(broker, owner, lambda s: s.session is not None and s.session.closed, session=sess)
    assert s.owner.frozen and used(s, L.DAILY_WAGER) == 15 and used(s, L.RESERVED_EXPOSURE) == 0
    await call(broker, subjects.LIMITS_FREEZE, LimitsFreeze(scope_id=owner, frozen=False), FreezeState)
    assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=1)).allowed


async def test_frozen_participant_is_refused_while_the_owner_other_agent_plays(limits, broker) -> None:
    owner, acct, _ = ids()
    await call(broker, subjects.LIMITS_FREEZE, LimitsFreeze(scope="participant", scope_id=acct), FreezeState)
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=1)
    assert err.code is ErrorCode.FROZEN and err.details["scope"] == "participant"
    assert (await check(broker, CheckKind.BUY_IN, owner, acct + "-other", amount=1)).allowed


async def test_a_freeze_only_caller_may_freeze_but_not_unfreeze(limits, broker) -> None:
    """Who may unfreeze is limits' decision, like who may raise a cap: a `freeze_only` caller (an
    agent's key) freezes at once, and its unfreeze is refused and changes nothing."""
    owner, acct, _ = ids()
    req = LimitsFreeze(scope_id=owner, reason="agent", freeze_only=True)
    assert (await call(broker, subjects.LIMITS_FREEZE, req, FreezeState)).frozen
    with pytest.raises(BusError) as err:
        await call(
            broker, subjects.LIMITS_FREEZE, LimitsFreeze(scope_id=owner, frozen=False, freeze_only=True), FreezeState
        )
    assert err.value.code is ErrorCode.FORBIDDEN and err.value.details["reason"] == "unfreeze_needs_owner"
    assert (await state(broker, owner)).owner.frozen
    assert (await denied(broker, CheckKind.BUY_IN, owner, acct, amount=1)).code is ErrorCode.FROZEN
    await call(broker, subjects.LIMITS_FREEZE, LimitsFreeze(scope_id=owner, frozen=False), FreezeState)
    assert not (await state(broker, owner)).owner.frozen


async def test_duplicate_events_count_once(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    first = await wallet.send(K.COMMIT, 40, owner=owner, account=acct, session=sess, hand="h1")
    await wallet.publish(first)  # same Nats-Msg-Id: JetStream drops it
    await wallet.publish(first, msg_id="redelivered-" + first.event_id)  # stored twice: limits must drop it
    await wallet.publish(first, msg_id=None)
    await wallet.send(K.COMMIT, 1, owner=owner, account=acct, session=sess, hand="h2")  # a marker after them
    s = await wait_for(broker, owner, lambda s: s.session is not None and s.session.hands == 2, session=sess)
    assert used(s, L.DAILY_WAGER) == 41 and s.session is not None and s.session.wager == 41


async def test_returned_and_refunded_bets_do_not_reduce_gross_wager(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await wallet.send(K.COMMIT, 100, owner=owner, account=acct, session=sess, hand="h1")
    await wallet.send(K.RETURN, 60, owner=owner, account=acct, session=sess, hand="h1")  # unmatched part
    await wallet.send(K.COMMIT, 20, owner=owner, account=acct, session=sess, hand="h2")
    await wallet.send(K.REFUND, 20, owner=owner, account=acct, session=sess, hand="h2")  # hand cancelled
    await wallet.send(K.COMMIT, 1, owner=owner, account=acct, session=sess, hand="h3")
    s = await wait_for(broker, owner, lambda s: s.session is not None and s.session.hands == 3, session=sess)
    assert used(s, L.DAILY_WAGER) == 121 and used(s, L.SESSION_WAGER) == 121


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"kind": "teleport", "owner_id": "o", "amount": 1}, "unknown kind"),
        ({"kind": "buy_in", "owner_id": "o", "amount": 0}, "zero"),
        ({"kind": "buy_in", "owner_id": "o", "amount": -5}, "negative"),
        ({"kind": "buy_in", "owner_id": "o", "amount": 10**13}, "huge"),
        ({"kind": "buy_in", "owner_id": "o", "amount": 5.5}, "fraction"),
        ({"kind": "buy_in", "owner_id": "o", "amount": "5"}, "string"),
        ({"kind": "buy_in", "owner_id": "o"}, "no amount"),
        ({"kind": "wager", "owner_id": "o", "amount": 5}, "no session"),
        ({"kind": "buy_in", "owner_id": "", "amount": 5}, "empty owner"),
        ({"kind": "buy_in", "owner_id": "o", "amount": 5, "sneaky": 1}, "unknown field"),
    ],
)
async def test_bad_check_is_malformed(limits, broker, body, why) -> None:
    reply = await (await broker.request(json.dumps(body).encode(), subjects.LIMITS_CHECK, timeout=5)).decode()
    assert reply["ok"] is False and reply["error"]["code"] == "malformed", why


async def test_bad_commands_are_malformed_and_change_nothing(limits, broker) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.DAILY_WAGER, 100)
    before = await state(broker, owner, acct, sess)
    bad = [
        (subjects.LIMITS_SET_CAP, {"scope_id": owner, "limit": "daily_wager", "cap": -1}),
        (subjects.LIMITS_SET_CAP, {"scope_id": owner, "limit": "daily_wager", "cap": 10**13}),
        (subjects.LIMITS_SET_CAP, {"scope_id": owner, "limit": "daily_wager", "cap": 1.5}),
        (subjects.LIMITS_SET_CAP, {"scope_id": owner, "limit": "bedtime", "cap": 1}),
        (subjects.LIMITS_SET_CAP, {"scope": "planet", "scope_id": owner, "limit": "daily_wager", "cap": 1}),
        (subjects.LIMITS_FREEZE, {"scope_id": owner, "frozen": "maybe"}),
        (subjects.LIMITS_FREEZE, {"scope_id": owner, "reason": "x" * 501}),
        (subjects.LIMITS_GET, {}),
        (subjects.LIMITS_SESSION_END, {"session_id": ""}),
    ]
    for subject, body in bad:
        reply = await (await broker.request(json.dumps(body).encode(), subject, timeout=5)).decode()
        assert reply["ok"] is False and reply["error"]["code"] == "malformed", (subject, body)
    for subject in (subjects.LIMITS_CHECK, subjects.LIMITS_SET_CAP, subjects.LIMITS_FREEZE):
        reply = await (await broker.request(b"not json{", subject, timeout=5)).decode()
        assert reply["error"]["code"] == "malformed"
    after = await state(broker, owner, acct, sess)
    assert after.model_dump(exclude={"now"}) == before.model_dump(exclude={"now"})


async def test_malformed_event_is_dropped_and_later_events_still_count(limits, broker, wallet, nats_url) -> None:
    owner, acct, sess = ids()
    await wallet.js.publish(subjects.WALLET_TRANSFER_EVENTS, b'{"kind": "commit", "amount": -3}')
    await wallet.send(K.COMMIT, 3, owner=owner, account=acct, session=sess, hand="h1")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 3)


async def test_set_cap_is_idempotent_on_message_id(limits, broker, clock) -> None:
    owner, _, _ = ids()
    req = LimitsSetCap(scope_id=owner, limit=L.DAILY_WAGER, cap=100)
    first = await call(broker, subjects.LIMITS_SET_CAP, req, CapChange)
    clock.advance(seconds=5)
    again = await call(broker, subjects.LIMITS_SET_CAP, req, CapChange)
    assert again == first
    other = LimitsSetCap(message_id=req.message_id, scope_id=owner, limit=L.DAILY_WAGER, cap=5)
    with pytest.raises(BusError) as err:
        await call(broker, subjects.LIMITS_SET_CAP, other, CapChange)
    assert err.value.code is ErrorCode.CONFLICT
    assert (await state(broker, owner)).owner.limits[L.DAILY_WAGER].cap == 100


async def test_a_lower_only_caller_cannot_raise_through_parallel_requests(
    limits, services, module_database_url, shared_clock, broker
) -> None:
    """Limits decides whether a change is a raise, with the write: parallel `lower_only` changes
    (two replicas on one database) are judged one after the other, so none lands above one that
    was applied before it — the race the gateway had when it read the cap, decided, then wrote."""
    services.start("limits", database_url=module_database_url, **_env(shared_clock, "limits-test-second"))
    for attempt in range(3):
        owner, _, _ = ids()
        assert (await set_cap(broker, owner, L.DAILY_BUY_IN, 1000)).applied
        caps = [900 + 10 * i for i in range(11)] + [1010]  # all but 1010 lower the cap in force at first

        async def lower(cap: int, owner: str = owner) -> CapChange | BusError:
            req = LimitsSetCap(scope_id=owner, limit=L.DAILY_BUY_IN, cap=cap, lower_only=True)
            try:
                return await call(broker, subjects.LIMITS_SET_CAP, req, CapChange)
            except BusError as exc:
                return exc

        outcomes = dict(zip(caps, await asyncio.gather(*(lower(c) for c in caps))))
        refused = {c: o for c, o in outcomes.items() if isinstance(o, BusError)}
        assert all(
            o.code is ErrorCode.FORBIDDEN and o.details["reason"] == "raise_needs_owner" for o in refused.values()
        )
        assert 1010 in refused and 900 not in refused  # a raise is always refused, the lowest never
        assert all(o.applied for o in outcomes.values() if isinstance(o, CapChange))  # lowering applies at once
        # 900 was applied at some point; nothing above it may have been applied after it
        assert (await state(broker, owner)).owner.limits[L.DAILY_BUY_IN].cap == 900, (attempt, sorted(refused))
    with pytest.raises(BusError) as err:  # and alone: a raise by a lower-only caller changes nothing
        await call(
            broker,
            subjects.LIMITS_SET_CAP,
            LimitsSetCap(scope_id=owner, limit=L.DAILY_BUY_IN, cap=None, lower_only=True),
            CapChange,
        )
    assert err.value.code is ErrorCode.FORBIDDEN and err.value.details["cap"] == 900
    assert (await state(broker, owner)).owner.limits[L.DAILY_BUY_IN].cap == 900
