"""A tournament moves a player between its tables with their chips: the host's `unseat` cashes the
seat out into the player's tournament chips account (not banned), and a `Join` with a chosen
`seat` brings that whole stack to the other table; the chips are conserved and the player is
never at two tables (real wallet, limits, timer and table processes)."""

from __future__ import annotations

from typing import Any

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import GetView, Host, Join
from felt_contracts.wallet import ChipsIssue, ChipsMoved, ChipsStack
from felt_runtime.bus import call
from tests.support.waiting import refused
from tests.table.conftest import cmd, create_table, player, uid
from tests.table.test_tournament_chips import chips_of, play_hands


async def stacks(bus: Any, t: str) -> dict[str, tuple[int, int]]:
    v = (await cmd(bus, t, GetView())).view
    assert v is not None
    return {s.participant_id: (s.seat, s.stack) for s in v.seats if s.participant_id}


async def test_a_player_moves_to_a_chosen_seat_at_another_table_with_the_whole_stack(stack: Any, bus: Any) -> None:
    tid, host = uid("c"), uid("host")
    pids = [(await player(bus))[0] for _ in range(4)]
    issue = ChipsIssue(
        ledger_id=tid, issue_id="start", stacks=[ChipsStack(participant_id=p, amount=1000) for p in pids]
    )
    await call(bus, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved)
    cfg: dict[str, Any] = dict(chips=tid, host_id=host, small_blind=10, big_blind=20, min_buy_in=20, max_buy_in=4000)
    a, b = await create_table(bus, **cfg), await create_table(bus, **cfg)
    for p in pids[:3]:
        await cmd(bus, a, Join(participant_id=p, owner_id=f"o-{p}", kind="agent", buy_in=1000))
    await cmd(bus, b, Join(participant_id=pids[3], owner_id=f"o-{pids[3]}", kind="agent", buy_in=1000, seat=4))
    assert (await stacks(bus, b))[pids[3]] == (4, 1000)  # the chosen seat
    await play_hands(bus, a, pids[:3], 2)
    before = await stacks(bus, a)
    mover = next(p for p in pids[:3] if p in before)
    taken = await refused(cmd(bus, b, Join(participant_id=mover, owner_id=f"o-{mover}", kind="agent", seat=2)))
    assert taken.code is ErrorCode.ALREADY_SEATED  # never at two tables at once
    busy = await refused(cmd(bus, b, Join(participant_id=mover, owner_id=f"o-{mover}", kind="agent", seat=4)))
    assert busy.code in (ErrorCode.TABLE_FULL, ErrorCode.ALREADY_SEATED)
    nobody = await refused(cmd(bus, a, Host(participant_id=host, control="unseat", participant=uid("p"))))
    assert nobody.code is ErrorCode.NOT_FOUND
    assert (await cmd(bus, a, Host(participant_id=host, control="unseat", participant=mover))).status == "now"
    moved = before[mover][1]
    assert (await chips_of(bus, tid, mover)).available == moved  # cashed out into the chips account
    full = await refused(cmd(bus, b, Join(participant_id=mover, owner_id=f"o-{mover}", kind="agent", seat=4)))
    assert full.code is ErrorCode.TABLE_FULL and full.details.get("field") == "seat"
    res = await cmd(bus, b, Join(participant_id=mover, owner_id=f"o-{mover}", kind="agent", seat=2))
    assert (res.seat, res.buy_in) == (2, moved)  # the whole stack, at the chosen seat
    after_a, after_b = await stacks(bus, a), await stacks(bus, b)
    assert mover not in after_a and after_b[mover] == (2, moved)
    assert sum(s for _, s in after_a.values()) + sum(s for _, s in after_b.values()) == 4000
    assert (await chips_of(bus, tid, mover)).available == 0
