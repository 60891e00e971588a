"""A minimal service built on felt_runtime, used to test the runtime itself."""

from sqlalchemy import text

from felt_contracts.base import Message, Request
from felt_runtime.bus import BusError, responder
from felt_runtime.db import migrate
from felt_runtime.service import ServiceContext


class Echo(Request):
    text: str
    fail: str = ""


class Echoed(Message):
    text: str
    rows: int


def build(ctx: ServiceContext) -> None:
    engine = ctx.database()
    ctx.redis()

    @ctx.on_startup
    async def schema() -> None:
        await migrate(engine, "tests.support.demo", "demo")

    @responder(ctx.broker, "felt.demo.echo", Echo, queue="felt-demo")
    async def echo(req: Echo) -> Echoed:
        if req.fail == "refuse":
            raise BusError("conflict", "refused as asked", why="test")
        if req.fail == "crash":
            raise RuntimeError("boom")
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT count(*) FROM demo_items"))).scalar_one()
        return Echoed(text=req.text, rows=rows)
