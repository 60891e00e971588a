"""Bus handlers: commands go through the group-commit writer, queries read directly.

Every handler is registered with `responder` (so the AsyncAPI document and the contract
registry know it), but at startup `FastPath` takes the wallet's subjects over with plain
nats-py queue subscriptions: same validation and error replies (`felt_runtime.bus.dispatch`),
without FastStream's per-message machinery (a task group, a thread-pool hop to resolve the
message argument, middlewares, and an access log line per message at INFO). Profiling the
wallet under load showed that machinery costing more CPU per commit than the ledger itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from nats.aio.msg import Msg
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects as s
from felt_contracts.wallet import (
    AccountOpened, Balance, BalanceQuery, BuyIn, BuyInResult, CancelHand, CancelTable, CashOut, CashOutResult,
    Commit, CommitResult, HandOutcome, Leaderboard, LeaderboardQuery, OpenAccount, SessionHistory,
    SessionsQuery, Settle, TableCancelled,
)
from felt_runtime.bus import dispatch, responder
from felt_wallet import queries
from felt_wallet.writer import Writer

log = logging.getLogger("felt.wallet.bus")
Handler = Callable[[Any], Awaitable[BaseModel]]
_JSON = {"content-type": "application/json"}


class FastPath:
    """The wallet's subjects on raw nats-py subscriptions (see the module docstring)."""

    def __init__(self, broker: Any, queue: str, max_in_flight: int = 1024) -> None:
        self.broker = broker
        self.queue = queue
        self.routes: dict[str, tuple[type[BaseModel], Handler]] = {}
        self.subs: list[Any] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self.slots = asyncio.Semaphore(max_in_flight)
        self.active = False

    def route(self, subject: str, model: type[Any]) -> Callable[[Handler], Handler]:
        def decorate(handler: Handler) -> Handler:
            responder(self.broker, subject, model, queue=self.queue, max_workers=512)(handler)
            self.routes[subject] = (model, handler)
            return handler
        return decorate

    def _detach(self) -> bool:
        """Keep FastStream from starting its subscribers for our subjects (they stay in the
        AsyncAPI document). Returns False if this FastStream keeps subscribers elsewhere, in
        which case FastStream serves the subjects as before."""
        registered = getattr(self.broker, "_subscribers", None)
        if registered is None:
            return False
        ours = [sub for sub in list(registered) if getattr(sub, "_subject", None) in self.routes]
        if len(ours) != len(self.routes):
            return False
        for sub in ours:
            registered.discard(sub)
        return True

    async def start(self) -> None:
        """Call after `broker.connect()` and before `broker.start()`."""
        if not self._detach():
            log.warning("FastStream internals changed; wallet subjects stay on FastStream subscribers")
            return
        nc = self.broker.connection
        for subject, (model, handler) in self.routes.items():
            self.subs.append(await nc.subscribe(subject, queue=self.queue, cb=self._callback(model, handler),
                                                pending_msgs_limit=-1, pending_bytes_limit=-1))
        self.active = True

    def _callback(self, model: type[Any], handler: Handler) -> Callable[[Msg], Awaitable[None]]:
        nc = self.broker.connection

        async def serve(msg: Msg) -> None:
            try:
                reply = await dispatch(handler, model, msg.data)
                if msg.reply:
                    headers = dict(_JSON)
                    if msg.headers and "correlation_id" in msg.headers:
                        headers["correlation_id"] = msg.headers["correlation_id"]
                    await nc.publish(msg.reply, reply.model_dump_json().encode(), headers=headers)
            except Exception:  # noqa: BLE001 - the caller times out and retries with the same ids
                log.exception("reply failed")
            finally:
                self.slots.release()

        async def on_msg(msg: Msg) -> None:
            await self.slots.acquire()  # backpressure: the subscription's delivery waits
            task = asyncio.get_running_loop().create_task(serve(msg))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

        return on_msg

    async def stop(self) -> None:
        for sub in self.subs:
            try:
                await sub.unsubscribe()
            except Exception:  # noqa: BLE001 - connection already closed
                pass
        self.subs.clear()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=5)


def register(broker: Any, engine: AsyncEngine, writer: Writer) -> FastPath:
    fast = FastPath(broker, s.WALLET_QUEUE)
    route = fast.route

    @route(s.WALLET_OPEN_ACCOUNT, OpenAccount)
    async def open_account(req: OpenAccount) -> AccountOpened:
        """Open an account with the starting grant (idempotent on account_id)."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_BUY_IN, BuyIn)
    async def buy_in(req: BuyIn) -> BuyInResult:
        """Available -> reserve at a table, within its min/max; opens a table session."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_COMMIT, Commit)
    async def commit(req: Commit) -> CommitResult:
        """Reserve (or available) -> hand escrow, one per chip-committing action."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_SETTLE, Settle)
    async def settle(req: Settle) -> HandOutcome:
        """Escrow -> winners; must empty the escrow exactly; a hand ends once."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_CANCEL_HAND, CancelHand)
    async def cancel_hand(req: CancelHand) -> HandOutcome:
        """Escrow -> each contributor exactly what it put in; a hand ends once."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_CANCEL_TABLE, CancelTable)
    async def cancel_table(req: CancelTable) -> TableCancelled:
        """Restart policy: cancel every open hand of the table, cash out its reserves."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_CASH_OUT, CashOut)
    async def cash_out(req: CashOut) -> CashOutResult:
        """Reserve -> available (an amount or all); emptying the reserve closes the session."""
        return await writer.submit(req)  # type: ignore[return-value]

    @route(s.WALLET_BALANCE, BalanceQuery)
    async def balance(req: BalanceQuery) -> Balance:
        """Available, reserved and in play (escrow of open hands) of one account."""
        return await queries.balance(engine, req.account_id)

    @route(s.WALLET_LEADERBOARD, LeaderboardQuery)
    async def leaderboard(req: LeaderboardQuery) -> Leaderboard:
        """Top accounts by available + reserved (escrow excluded)."""
        return await queries.leaderboard(engine, req.limit)

    @route(s.WALLET_SESSIONS, SessionsQuery)
    async def sessions(req: SessionsQuery) -> SessionHistory:
        """Per table session: buy-in, cash-out, net, gross wagers, hands played."""
        return await queries.session_history(engine, req.account_id, req.limit)

    return fast
