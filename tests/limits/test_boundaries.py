"""Every limit at its boundary: exactly at the cap is allowed, one over is denied; counters
are fed by TransferEvents through real JetStream; the UTC midnight rollover keeps exposure."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.limits import (
    CheckKind,
    FreezeState,
    LimitName,
    LimitsCheck,
    LimitsDecision,
    LimitsFreeze,
    LimitsGet,
    LimitsState,
    Scope,
)
from felt_contracts.wallet import TransferKind as K
from felt_runtime.bus import BusError, call
from tests.limits.conftest import ids, set_cap, used, wait_for

L = LimitName


async def check(
    broker,
    kind: CheckKind,
    owner: str,
    account: str | None = None,
    session: str | None = None,
    amount: int | None = None,
    credential: str | None = None,
) -> LimitsDecision:
    req = LimitsCheck(
        kind=kind, owner_id=owner, participant_id=account, credential_id=credential, session_id=session, amount=amount
    )
    return await call(broker, subjects.LIMITS_CHECK, req, LimitsDecision)


async def denied(
    broker, kind: CheckKind, owner: str, account=None, session=None, amount=None, credential=None
) -> BusError:
    with pytest.raises(BusError) as err:
        await check(broker, kind, owner, account, session, amount, credential)
    return err.value


async def test_daily_buy_in_at_cap_allowed_one_over_denied(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.DAILY_BUY_IN, 1000)
    await wallet.send(K.BUY_IN, 600, owner=owner, account=acct, session=sess)
    await wallet.send(K.CASH_OUT, 600, owner=owner, account=acct, session=sess)  # exposure back to 0
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_BUY_IN) == 600 and used(s, L.RESERVED_EXPOSURE) == 0)
    ok = await check(broker, CheckKind.BUY_IN, owner, acct, amount=400)
    assert ok.allowed and ok.headroom[L.DAILY_BUY_IN] == 400
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=401)
    assert err.code is ErrorCode.LIMIT_EXCEEDED
    assert err.details["limit"] == "daily_buy_in" and err.details["headroom"] == 400
    assert err.details["cap"] == 1000 and err.details["used"] == 600 and err.details["scope"] == "owner"


async def test_daily_wager_at_cap_allowed_one_over_denied(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.DAILY_WAGER, 300)
    await wallet.send(K.COMMIT, 200, owner=owner, account=acct, session=sess, hand="h1")
    await wallet.send(K.COMMIT, 50, owner=owner, account=acct, session=sess, hand="h2")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 250)
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 50)).allowed
    err = await denied(broker, CheckKind.WAGER, owner, acct, sess, 51)
    assert err.details["limit"] == "daily_wager" and err.details["headroom"] == 50


async def test_reserved_exposure_at_cap_allowed_one_over_denied_and_cash_out_releases(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.RESERVED_EXPOSURE, 500)
    await wallet.send(K.BUY_IN, 300, owner=owner, account=acct, session=sess)
    await wait_for(broker, owner, lambda s: used(s, L.RESERVED_EXPOSURE) == 300)
    assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=200)).allowed
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=201)
    assert err.details["limit"] == "reserved_exposure" and err.details["headroom"] == 200
    # the session cashes out (less than it bought in: it lost chips): the session is closed, exposure 0
    await wallet.send(K.CASH_OUT, 120, owner=owner, account=acct, session=sess)
    await wait_for(broker, owner, lambda s: used(s, L.RESERVED_EXPOSURE) == 0)
    assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=500)).allowed


async def test_session_end_without_cash_out_releases_exposure(limits, broker, wallet) -> None:
    from felt_contracts.limits import LimitsSessionEnd, SessionEnded

    owner, acct, sess = ids()
    await wallet.send(K.BUY_IN, 300, owner=owner, account=acct, session=sess)
    await wait_for(broker, owner, lambda s: used(s, L.RESERVED_EXPOSURE) == 300)
    end = LimitsSessionEnd(session_id=sess)  # busted: stack of zero, nothing to cash out
    assert (await call(broker, subjects.LIMITS_SESSION_END, end, SessionEnded)).closed
    await wait_for(broker, owner, lambda s: used(s, L.RESERVED_EXPOSURE) == 0)


async def test_session_hands_at_cap_then_session_closes_at_settlement(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.SESSION_HANDS, 3)
    for hand in ("h1", "h1", "h2"):  # two commits in h1: one hand
        await wallet.send(K.COMMIT, 2, owner=owner, account=acct, session=sess, hand=hand)
    await wait_for(broker, owner, lambda s: s.session is not None and s.session.hands == 2, session=sess)
    assert (await check(broker, CheckKind.START_HAND, owner, acct, sess)).headroom[L.SESSION_HANDS] == 1
    assert (await check(broker, CheckKind.CONTINUE_SESSION, owner, acct, sess)).allowed
    await wallet.send(K.COMMIT, 2, owner=owner, account=acct, session=sess, hand="h3")  # the 3rd hand: at the cap
    await wait_for(broker, owner, lambda s: s.session is not None and s.session.hands == 3, session=sess)
    err = await denied(broker, CheckKind.START_HAND, owner, acct, sess)
    assert err.details["limit"] == "session_hands" and err.details["headroom"] == 0
    closing = await denied(broker, CheckKind.CONTINUE_SESSION, owner, acct, sess)  # the table cashes out
    assert closing.code is ErrorCode.LIMIT_EXCEEDED and closing.details["limit"] == "session_hands"
    # another session of the same owner starts fresh
    assert (await check(broker, CheckKind.START_HAND, owner, acct, sess + "-2")).allowed


async def test_session_wager_at_cap_allowed_one_over_denied_then_session_closes(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.SESSION_WAGER, 100)
    await wallet.send(K.COMMIT, 60, owner=owner, account=acct, session=sess, hand="h1")
    await wait_for(broker, owner, lambda s: used(s, L.SESSION_WAGER) == 60, session=sess)
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 40)).allowed
    err = await denied(broker, CheckKind.WAGER, owner, acct, sess, 41)
    assert err.details["limit"] == "session_wager" and err.details["headroom"] == 40
    # a forced bet asked with start_hand is checked too
    assert (await denied(broker, CheckKind.START_HAND, owner, acct, sess, 41)).details["limit"] == "session_wager"
    assert (await check(broker, CheckKind.CONTINUE_SESSION, owner, acct, sess)).allowed
    await wallet.send(K.COMMIT, 40, owner=owner, account=acct, session=sess, hand="h2")  # reaches 100
    await wait_for(broker, owner, lambda s: used(s, L.SESSION_WAGER) == 100, session=sess)
    closing = await denied(broker, CheckKind.CONTINUE_SESSION, owner, acct, sess)
    assert closing.details["limit"] == "session_wager" and closing.details["headroom"] == 0


async def test_participant_cap_and_owner_aggregate(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    other = acct + "-agent2"
    await set_cap(broker, acct, L.DAILY_WAGER, 100, scope=Scope.PARTICIPANT)
    await set_cap(broker, owner, L.DAILY_WAGER, 250)
    await wallet.send(K.COMMIT, 90, owner=owner, account=acct, session=sess, hand="h1")
    await wallet.send(K.COMMIT, 150, owner=owner, account=other, session=sess + "b", hand="h9")
    await wait_for(
        broker,
        owner,
        lambda s: used(s, L.DAILY_WAGER) == 240 and used(s, L.DAILY_WAGER, "participant") == 90,
        account=acct,
    )
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 10)).allowed  # both at cap exactly
    err = await denied(broker, CheckKind.WAGER, owner, other, sess + "b", 11)  # owner: 240 + 11 > 250
    assert err.details["scope"] == "owner" and err.details["headroom"] == 10
    await set_cap(broker, owner, L.DAILY_WAGER, 1000)  # raise: pending, owner stays at 250
    await set_cap(broker, owner, L.DAILY_WAGER, 500)  # lower than 250? no: still a raise, pending
    await set_cap(broker, owner, L.DAILY_WAGER, 200)  # lower: at once
    err = await denied(broker, CheckKind.WAGER, owner, acct, sess, 1)
    assert err.details["scope"] == "owner" and err.details["headroom"] == 0


async def test_utc_midnight_resets_daily_counters_and_keeps_reserved_exposure(limits, broker, wallet, clock) -> None:
    owner, acct, sess = ids()
    evening = datetime(2026, 12, 1, 23, 0, tzinfo=UTC)
    clock.set(evening)
    await set_cap(broker, owner, L.DAILY_BUY_IN, 1000)
    await set_cap(broker, owner, L.DAILY_WAGER, 50)
    await set_cap(broker, owner, L.RESERVED_EXPOSURE, 1500)
    await wallet.send(K.BUY_IN, 1000, owner=owner, account=acct, session=sess)
    await wallet.send(K.COMMIT, 50, owner=owner, account=acct, session=sess, hand="h1")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 50)
    clock.set(datetime(2026, 12, 1, 23, 59, 59, 999999, tzinfo=UTC))  # last instant of the day
    assert (await denied(broker, CheckKind.BUY_IN, owner, acct, amount=1)).details["limit"] == "daily_buy_in"
    assert (await denied(broker, CheckKind.WAGER, owner, acct, sess, 1)).details["limit"] == "daily_wager"
    clock.set(datetime(2026, 12, 2, 0, 0, tzinfo=UTC))  # 00:00 UTC: a new day
    s = await wait_for(broker, owner, lambda s: True)
    assert used(s, L.DAILY_BUY_IN) == 0 and used(s, L.DAILY_WAGER) == 0
    assert used(s, L.RESERVED_EXPOSURE) == 1000  # the buy-in still sits at the table
    assert (await check(broker, CheckKind.WAGER, owner, acct, sess, 50)).allowed
    assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=500)).allowed  # exposure 1000 + 500 = cap
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=501)
    assert err.details["limit"] == "reserved_exposure" and err.details["used"] == 1000
    # an event stamped before midnight, delivered after it, still counts for its own day
    await wallet.send(K.COMMIT, 5, owner=owner, account=acct, session=sess, hand="h2", at=evening)
    await wallet.send(K.COMMIT, 7, owner=owner, account=acct, session=sess, hand="h3")
    s = await wait_for(broker, owner, lambda s: used(s, L.SESSION_WAGER) == 62, session=sess)
    assert used(s, L.DAILY_WAGER) == 7


async def test_credential_caps_bind_against_the_participants_counters(limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    key, other_key = f"key-{acct}-1", f"key-{acct}-2"
    await set_cap(broker, key, L.DAILY_BUY_IN, 500, scope=Scope.CREDENTIAL)
    await wallet.send(K.BUY_IN, 300, owner=owner, account=acct, session=sess)
    await wallet.send(K.CASH_OUT, 300, owner=owner, account=acct, session=sess)
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_BUY_IN, "participant") == 300, account=acct)
    ok = await check(broker, CheckKind.BUY_IN, owner, acct, amount=200, credential=key)  # at the cap
    assert ok.headroom[L.DAILY_BUY_IN] == 200
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=201, credential=key)
    assert err.details["limit"] == "daily_buy_in" and err.details["scope"] == "credential"
    assert err.details["scope_id"] == key and err.details["used"] == 300  # what the participant used
    assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=201, credential=other_key)).allowed
    await call(
        broker,
        subjects.LIMITS_FREEZE,
        LimitsFreeze(scope=Scope.CREDENTIAL, scope_id=other_key, reason="lost"),
        FreezeState,
    )
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=1, credential=other_key)
    assert err.code is ErrorCode.FROZEN and err.details["scope"] == "credential"
    st = await call(
        broker, subjects.LIMITS_GET, LimitsGet(owner_id=owner, participant_id=acct, credential_id=key), LimitsState
    )
    assert st.credential is not None and st.credential.limits[L.DAILY_BUY_IN].used == 300
    assert st.credential.limits[L.DAILY_BUY_IN].cap == 500 and st.credential.limits[L.DAILY_WAGER].cap is None


async def test_holding_checks_in_parallel_never_pass_a_cap_together_and_what_ifs_hold_nothing(
    limits, broker, wallet
) -> None:
    import asyncio

    owner, acct, sess = ids()
    await set_cap(broker, owner, L.DAILY_BUY_IN, 100)
    for _ in range(2):  # what-if checks (no hold) change nothing
        assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=100)).allowed
    reqs = [
        LimitsCheck(kind=CheckKind.BUY_IN, owner_id=owner, participant_id=f"{acct}-{i}", amount=40, hold=True)
        for i in range(6)
    ]
    outcomes = await asyncio.gather(
        *(call(broker, subjects.LIMITS_CHECK, r, LimitsDecision) for r in reqs), return_exceptions=True
    )
    assert [isinstance(o, LimitsDecision) for o in outcomes].count(True) == 2, outcomes
    assert all(o.code is ErrorCode.LIMIT_EXCEEDED for o in outcomes if isinstance(o, BusError))
    err = await denied(broker, CheckKind.BUY_IN, owner, acct, amount=21)
    assert err.details["used"] == 80 and err.details["headroom"] == 20  # held, not yet counted
    allowed = [r for r, o in zip(reqs, outcomes) if isinstance(o, LimitsDecision)]
    for r in allowed:  # the wallet's transfers arrive: counted once, the holds released
        await wallet.send(K.BUY_IN, 40, owner=owner, account=r.participant_id, session=f"{sess}-{r.participant_id}")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_BUY_IN) == 80)
    assert (await check(broker, CheckKind.BUY_IN, owner, acct, amount=20)).headroom[L.DAILY_BUY_IN] == 20


async def test_a_dealt_hand_is_held_until_counted_so_a_quick_next_hand_cannot_pass_the_session_cap(
    limits, broker, wallet
) -> None:
    owner, acct, sess = ids()
    await set_cap(broker, owner, L.SESSION_HANDS, 1)
    hand = LimitsCheck(
        kind=CheckKind.START_HAND,
        owner_id=owner,
        participant_id=acct,
        session_id=sess,
        hand_id="t-0123456789abcdef",
        hold=True,
    )
    await call(broker, subjects.LIMITS_CHECK, hand, LimitsDecision)  # the first hand: at the cap, allowed
    await call(broker, subjects.LIMITS_CHECK, hand, LimitsDecision)  # asked again for the same hand: one hold
    # the wallet's commit of that hand is not counted yet: the next hand is refused all the same
    err = await denied(broker, CheckKind.CONTINUE_SESSION, owner, acct, session=sess)
    assert err.details["limit"] == "session_hands" and err.details["used"] == 1
    await wallet.send(K.COMMIT, 5, owner=owner, account=acct, session=sess, hand="t-0123456789abcdef")
    await wait_for(broker, owner, lambda s: s.session is not None and s.session.hands == 1, account=acct, session=sess)
    err = await denied(broker, CheckKind.CONTINUE_SESSION, owner, acct, session=sess)
    assert err.details["used"] == 1  # counted once: the hold is gone


def start_hand(owner: str, acct: str, sess: str, hand: str, stack: int, forced: int | None = None) -> LimitsCheck:
    """A buy-in table's check before a deal: the seat's stack asks for its allowance."""
    return LimitsCheck(
        kind=CheckKind.START_HAND,
        owner_id=owner,
        participant_id=acct,
        session_id=sess,
        hand_id=hand,
        amount=forced,
        stack=stack,
        hold=True,
    )


async def test_a_hands_allowance_is_the_least_of_the_stack_and_every_wager_caps_headroom(
    limits, broker, wallet
) -> None:
    owner, acct, sess = ids()
    first = await call(broker, subjects.LIMITS_CHECK, start_hand(owner, acct, sess, "t-a1", 200), LimitsDecision)
    assert first.allowance == 200  # the caps are far above the stack
    await wallet.send(K.COMMIT, 0, owner=owner, account=acct, session=sess, hand="t-a1")  # dealt in, wagered 0
    await wait_for(broker, owner, lambda s: s.session is not None and s.session.hands == 1, account=acct, session=sess)
    await set_cap(broker, owner, L.DAILY_WAGER, 500)
    await set_cap(broker, acct, L.SESSION_WAGER, 120, Scope.PARTICIPANT)
    second = await call(broker, subjects.LIMITS_CHECK, start_hand(owner, acct, sess, "t-a2", 200), LimitsDecision)
    assert second.allowance == 120  # the participant's session cap binds first
    # the hand's settlement is counted: it wagered 70 of its 120; the next hand gets what is left
    await wallet.send(K.COMMIT, 70, owner=owner, account=acct, session=sess, hand="t-a2")
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 70)
    third = await call(broker, subjects.LIMITS_CHECK, start_hand(owner, acct, sess, "t-a3", 200, 2), LimitsDecision)
    assert third.allowance == 50
    # held until counted: another seat of the owner, elsewhere, gets what the running hand leaves
    other = await call(
        broker, subjects.LIMITS_CHECK, start_hand(owner, f"{acct}-2", f"{sess}-2", "t-b1", 1000), LimitsDecision
    )
    assert other.allowance == 500 - 70 - 50
    # every chip of the day's cap is granted to a running hand: a forced bet elsewhere is refused
    err = await denied(broker, CheckKind.START_HAND, owner, acct, f"{sess}-3", 1)
    assert err.details["limit"] == "daily_wager" and err.details["headroom"] == 0


async def test_a_cap_lowered_while_a_hand_runs_binds_from_the_next_hand_and_a_freeze_stops_it(
    limits, broker, wallet
) -> None:
    owner, acct, sess = ids()
    running = await call(broker, subjects.LIMITS_CHECK, start_hand(owner, acct, sess, "t-c1", 200), LimitsDecision)
    assert running.allowance == 200
    await set_cap(broker, owner, L.DAILY_WAGER, 150)  # lowered mid-hand: the running hand keeps its grant
    await wallet.send(K.COMMIT, 120, owner=owner, account=acct, session=sess, hand="t-c1")  # its settlement
    await wait_for(broker, owner, lambda s: used(s, L.DAILY_WAGER) == 120)
    nxt = await call(broker, subjects.LIMITS_CHECK, start_hand(owner, acct, sess, "t-c2", 200, 2), LimitsDecision)
    assert nxt.allowance == 30
    await call(broker, subjects.LIMITS_FREEZE, LimitsFreeze(scope_id=owner, reason="cool down"), FreezeState)
    with pytest.raises(BusError) as err:
        await call(broker, subjects.LIMITS_CHECK, start_hand(owner, acct, sess, "t-c3", 200, 2), LimitsDecision)
    assert err.value.code is ErrorCode.FROZEN
