"""A calling station driven by felt_client, for tests that need an agent to play real hands."""

from __future__ import annotations

from felt_client import Conflict, FeltClient


async def calling_station(felt: FeltClient, table_id: str, hands: int | None = None) -> None:
    """Join, then check or call on every turn until the table closes (or has `hands` settled)."""
    await felt.join(table_id)
    cursor = 0
    while True:
        table = await felt.table(table_id)
        if table.get("closed") or (hands is not None and table.get("handsPlayed", 0) >= hands):
            return
        hand = table.get("hand") or {}
        legal = hand.get("legalActions")
        if legal and hand["actorSeatId"] == table["yourSeatId"]:
            try:
                await felt.act(
                    table_id,
                    {"type": "check"} if legal["check"] else {"type": "call"},
                    hand_id=hand["handId"],
                    turn_id=hand["turnId"],
                )
            except Conflict:
                pass  # the turn moved on: read the table again
            continue
        cursor = (await felt.poll(table_id, after=cursor, wait=5, wake="mine")).last_seq
