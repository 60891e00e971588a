"""Limits counts only the wallet's transfer events: one forged by another identity (the gateway,
the table) is refused by the server and never reaches the stream limits reads
(docs/operations.md, "Who may say what on the bus")."""

from __future__ import annotations

from felt_contracts import subjects
from felt_contracts.limits import LimitName as L
from felt_contracts.wallet import TransferKind as K
from tests.limits.conftest import ids, transfer_event, used, wait_for
from tests.support.servers import connected_as


async def test_a_transfer_event_forged_by_another_identity_never_reaches_limits(
    limits, broker, wallet, nats_url
) -> None:
    owner, acct, sess = ids()
    for forger in ("gateway", "table"):
        forged = transfer_event(K.BUY_IN, 5000, owner=owner, account=acct, session=sess)
        async with connected_as(nats_url, forger) as conn:
            await conn.nc.publish(subjects.WALLET_TRANSFER_EVENTS, forged.model_dump_json().encode())
            assert await conn.refused(subjects.WALLET_TRANSFER_EVENTS), forger
    # the wallet's own event, sent after the forged ones, is the only one counted
    await wallet.send(K.BUY_IN, 70, owner=owner, account=acct, session=sess)
    counted = await wait_for(broker, owner, lambda s: used(s, L.DAILY_BUY_IN) > 0)
    assert used(counted, L.DAILY_BUY_IN) == 70
