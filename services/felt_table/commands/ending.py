"""The end of a hand as a durable intent: settle for a finished hand, cancel for an aborted one.

The request is stored in the table's database with the command's events (`table_hand_ends`)
before the hand's result is published, then sent to the wallet, and sent again, with the same
ids, until the wallet answers; a restarted table sends every unanswered one before its restart
policy cancels what is still open. A finished hand is therefore always settled (a wallet that
is briefly away only delays it), and the wallet's `end:{hand}` key makes every resend return
the first outcome. The table deals no new hand while an end is unanswered.

The wallet is asked by the next command of the table's queue (`Do`), not by the command that
ended the hand: that command's reply (the last action of the hand) goes out once the end is
stored and the result published, without waiting for the settlement and what follows it (the
limits' `continue_session` checks of every seat, the intermission deadline), which would make
the last action of every hand the slowest.
Until the wallet answers, the table is where it is when the wallet is slow: `ending` is set,
nothing is dealt, a leaver's cash-out waits for the end.
"""

from __future__ import annotations

import logging
from functools import partial
from collections.abc import Awaitable, Callable

from felt_contracts.wallet import CancelHand, Settle
from felt_runtime.bus import BusError
from felt_table.commands.recovery import wait_for
from felt_table.model.table import Do, Table
from felt_table.ports.escrow import HandEnd
from felt_table.ports.retry import retryable, until_answered

log = logging.getLogger("felt.table.ending")

After = Callable[[Table], Awaitable[None]]


async def end(table: Table, req: HandEnd, after: After) -> None:
    """Record the end and publish the hand's result; the wallet is asked by the table's next
    command (`_ask`), and `after` runs once it answered."""
    table.ending = req
    table.events.hand_end = {
        "hand_id": req.hand_id,
        "table_id": table.tid,
        "kind": kind_of(req),
        "request": req.model_dump_json(),
        "acked": False,
    }
    try:
        await table.events.flush()  # written, then published: the end is durable before anyone sees the result
    except Exception:  # the wallet is asked all the same (only a crash now could lose it)
        log.exception("hand end not recorded", extra={"table_id": table.tid, "hand_id": req.hand_id})
    table.post(Do(partial(_ask, req=req, after=after)))


async def _ask(table: Table, *, req: HandEnd, after: After) -> None:
    """Send the stored end to the wallet (in the table's queue, after the command that ended the hand)."""
    try:
        await table.wallet.end(req)
    except BusError as exc:
        if retryable(exc):
            wait_for(
                table,
                "wallet",
                lambda: table.wallet.end(req),
                lambda table, _, refusal: acked(table, req, refusal, after),
            )
            return
        await acked(table, req, exc, after)
        return
    await acked(table, req, None, after)


async def cancel(table: Table, hand_id: str, after: After) -> None:
    """An aborted hand: refund its escrow (nothing to do if no chip can have reached it)."""
    if table.wallet.commit_seq == 0:
        await after(table)
        return
    table.needs_reconcile = True
    await end(table, CancelHand(message_id=f"{hand_id}:cancel", table_id=table.tid, hand_id=hand_id), after)


async def acked(table: Table, req: HandEnd, refusal: BusError | None, after: After) -> None:
    """The wallet answered the end: stored as acknowledged with this command's events; a
    refusal (the hand was ended otherwise) leaves the stacks to the ledger."""
    table.events.acked_ends.append(req.hand_id)
    table.ending = None
    if refusal is not None:
        log.error(
            "the wallet refused the end of the hand: stacks follow the ledger",
            extra={"table_id": table.tid, "hand_id": req.hand_id, "code": refusal.code.value},
        )
        table.needs_reconcile = True
    await after(table)


async def replay(table: Table) -> int:
    """At start: send every end the wallet has not answered (settle before the restart policy
    cancels what is still open: completed payouts remain paid). Waits for the wallet."""
    pending = await table.deps.store.pending_ends(table.tid)
    for kind, raw in pending:
        req: HandEnd = (Settle if kind == "settle" else CancelHand).model_validate_json(raw)
        try:
            await until_answered(partial(table.wallet.end, req), table.backoff)
        except BusError as exc:
            log.error(
                "the wallet refused a replayed hand end",
                extra={"table_id": table.tid, "hand_id": req.hand_id, "code": exc.code.value},
            )
        table.events.acked_ends.append(req.hand_id)
    return len(pending)


def kind_of(req: HandEnd) -> str:
    return "settle" if isinstance(req, Settle) else "cancel"
