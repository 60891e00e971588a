"""Tournament chips in the wallet (in-process wallet, real NATS and database): issued from the
tournament's issuer into chips accounts of their own, the ledger summing to zero throughout,
retired back to zero once."""

from __future__ import annotations

from felt_contracts import subjects as s
from felt_contracts.wallet import ChipsIssue, ChipsMoved, ChipsRetire, ChipsStack, TransferKind
from felt_runtime.bus import call
from tests.support.waiting import refused
from tests.wallet.conftest import check_invariants, snapshot
from tests.wallet.test_pools import available, players


async def test_chips_are_issued_and_retired_once_and_the_ledger_sums_to_zero(wallet) -> None:
    c = wallet.client
    a, b = await players(c, 2)
    issue = ChipsIssue(
        ledger_id="cup", issue_id="start", stacks=[ChipsStack(participant_id=p, amount=1500) for p in (a, b)]
    )
    issued = await call(c, s.WALLET_CHIPS_ISSUE, issue, ChipsMoved)
    assert issued.issuer == -3000 and {t.kind for t in issued.transfers} == {TransferKind.CHIPS_ISSUE}
    assert await call(c, s.WALLET_CHIPS_ISSUE, issue, ChipsMoved) == issued
    assert (await available(c, a), await available(c, b)) == (200, 200)  # paper chips untouched
    await check_invariants(wallet.engine)
    retired = await call(c, s.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id="cup"), ChipsMoved)
    assert retired.issuer == 0 and sum(t.amount for t in retired.transfers) == 3000
    assert await call(c, s.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id="cup"), ChipsMoved) == retired
    before = await snapshot(wallet.engine)
    late = ChipsIssue(ledger_id="cup", issue_id="late", stacks=[ChipsStack(participant_id=a, amount=1)])
    assert (await refused(call(c, s.WALLET_CHIPS_ISSUE, late, ChipsMoved))).details["reason"] == "chips_retired"
    assert await snapshot(wallet.engine) == before
    await check_invariants(wallet.engine)
