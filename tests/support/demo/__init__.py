"""A minimal service built on felt_runtime, used to test the runtime itself."""

import asyncio

from pydantic import Field
from sqlalchemy import text

from felt_contracts.base import Message, Request
from felt_runtime.bus import BusError, declare_contract, responder
from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext

#: one handler on three subjects: one at a time, up to 16 at once, and one at a time again
ECHO = "felt.demo.echo"
FAST_ECHO = "felt.demo.fast_echo"
SERIAL_ECHO = "felt.demo.serial_echo"
#: an event the demo consumes with a FastStream subscriber (the AsyncAPI test compares shapes)
NOTED = "felt.demo.noted"


class Echo(Request):
    text: str
    fail: str = ""
    sleep: float = Field(0.0, ge=0, le=5)


class Echoed(Message):
    text: str
    rows: int


def build(ctx: ServiceContext) -> None:
    engine = ctx.database()
    ctx.redis()

    @ctx.on_startup
    async def schema() -> None:
        await migrate(engine, "tests.support.demo", "demo")

    async def echo(req: Echo) -> Echoed:
        """Echo the text with the row count of demo_items; `fail` refuses or crashes, `sleep` waits."""
        if req.sleep:
            await asyncio.sleep(req.sleep)
        if req.fail == "refuse":
            raise BusError("conflict", "refused as asked", why="test")
        if req.fail == "crash":
            raise RuntimeError("boom")
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT count(*) FROM demo_items"))).scalar_one()
        return Echoed(text=req.text, rows=rows)

    responder(ctx.broker, ECHO, Echo, queue="felt-demo", concurrency=1)(echo)
    responder(ctx.broker, FAST_ECHO, Echo, queue="felt-demo", concurrency=16)(echo)
    responder(ctx.broker, SERIAL_ECHO, Echo, queue="felt-demo", concurrency=1)(echo)

    declare_contract(NOTED, Echo)

    @ctx.broker.subscriber(NOTED, title=f"{NOTED}:noted")
    async def noted(body: bytes) -> None:
        """Take note of an event (nothing to do)."""
