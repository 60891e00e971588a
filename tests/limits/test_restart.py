"""The durable JetStream consumer: events published while limits is down are counted after a
restart, exactly once, even when the crash left some delivered but unacknowledged."""

from __future__ import annotations

from felt_contracts.limits import LimitName
from felt_contracts.wallet import TransferKind as K
from tests.limits.conftest import ids, used, wait_for

L = LimitName


async def test_kill9_then_restart_counts_every_event_exactly_once(start_limits, broker, wallet) -> None:
    owner, acct, sess = ids()
    svc = start_limits(felt_limits_ack_wait_seconds="3")
    sent = [await wallet.send(K.COMMIT, 1, owner=owner, account=acct, session=sess, hand=f"h{i}") for i in range(50)]
    svc.kill9()  # mid-stream: some applied, some maybe applied but not acked
    for i in range(50, 60):
        sent.append(await wallet.send(K.COMMIT, 1, owner=owner, account=acct, session=sess, hand=f"h{i}"))
    for event in sent[:20]:  # and a replay of old ones, as a redelivery would be
        await wallet.publish(event, msg_id=None)
    svc.start()
    svc.wait_ready()
    s = await wait_for(
        broker, owner, lambda s: s.session is not None and s.session.hands == 60, session=sess, timeout=30
    )
    assert used(s, L.DAILY_WAGER) == 60 and s.session is not None and s.session.wager == 60
