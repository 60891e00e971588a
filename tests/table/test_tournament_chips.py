"""A tournament table plays tournament chips through the wallet's ordinary table paths (buy-in,
settlement, cash-out): they come from the tournament's issuer, never touch a player's paper
chips, and retire back to it at zero; its hands' histories (JSON and PHH) name the tournament and
the level they were played at (real wallet, limits, timer and table processes)."""

from __future__ import annotations

import asyncio
import random
import tomllib
from typing import Any

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.table import (
    CloseTable,
    GetHand,
    GetView,
    Host,
    Join,
    Leave,
    ListHands,
    Start,
    TableSummary,
    TournamentHand,
)
from felt_contracts.wallet import (
    Balance,
    BalanceQuery,
    ChipsIssue,
    ChipsMoved,
    ChipsRetire,
    ChipsStack,
    Leaderboard,
    LeaderboardQuery,
    chips_account,
)
from felt_runtime.bus import BusError, call
from tests.support.waiting import refused
from tests.table.conftest import balance, cmd, create_table, player, uid
from tests.table.driver import pick


async def play_hands(bus: Any, t: str, pids: list[str], hands: int) -> None:
    """Explicit starts and random legal actions until `hands` hands were settled."""
    rng = random.Random(7)
    deadline = asyncio.get_running_loop().time() + 180
    while asyncio.get_running_loop().time() < deadline:
        v = (await cmd(bus, t, GetView())).view
        assert v is not None
        if v.hands_played >= hands:
            return
        if v.hand is None or v.hand.phase == "over":
            for p in pids:  # two ready seats start the hand
                try:
                    await cmd(bus, t, Start(participant_id=p))
                except BusError as exc:
                    assert exc.code in (ErrorCode.CONFLICT, ErrorCode.UNAVAILABLE), exc
            continue
        actor = next((s.participant_id for s in v.seats if s.seat == v.hand.actor_seat_id), None)
        if actor is None:
            continue
        mine = (await cmd(bus, t, GetView(viewer=actor))).view
        act = pick(rng, mine, False) if mine is not None else None
        if act is None or mine is None or mine.hand is None:
            continue
        try:
            await cmd(bus, t, act.model_copy(update={"hand_id": mine.hand.hand_id, "turn_id": mine.hand.turn_id}))
        except BusError as exc:
            assert exc.code.value in ("stale_turn", "hand_closed", "not_your_turn"), exc
    raise AssertionError(f"fewer than {hands} hands were played")


async def chips_of(bus: Any, tid: str, pid: str) -> Balance:
    return await call(bus, subjects.WALLET_BALANCE, BalanceQuery(account_id=chips_account(tid, pid)), Balance)


async def test_a_tournament_table_plays_its_own_chips_and_they_retire_to_zero(stack: Any, bus: Any) -> None:
    tid = uid("c")
    pids = [(await player(bus))[0] for _ in range(3)]
    paper = {p: await balance(bus, p) for p in pids}
    issue = ChipsIssue(
        ledger_id=tid, issue_id="start", stacks=[ChipsStack(participant_id=p, amount=1000) for p in pids]
    )
    issued = await call(bus, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved)
    assert issued.issuer == -3000 and [m.amount for m in issued.transfers] == [1000] * 3
    assert await call(bus, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved) == issued  # once
    t = await create_table(bus, chips=tid, small_blind=10, big_blind=20, min_buy_in=20, max_buy_in=3000)
    for p in pids:
        await cmd(bus, t, Join(participant_id=p, owner_id=f"o-{p}", kind="agent", buy_in=1000))
    stranger, _ = await player(bus)  # holds paper chips, none of this tournament's
    await refused(cmd(bus, t, Join(participant_id=stranger, owner_id=f"o-{stranger}", kind="agent", buy_in=100)))
    await play_hands(bus, t, pids, 3)
    v = (await cmd(bus, t, GetView())).view
    assert v is not None and sum(s.stack for s in v.seats) == 3000
    stacks = {s.participant_id: s.stack for s in v.seats}  # a busted seat left the table
    for p in pids:  # the stacks are in the chips accounts' reserves; paper chips never moved
        assert (await chips_of(bus, tid, p)).reserved == stacks.get(p, 0)
        assert await balance(bus, p) == paper[p]
    board = await call(bus, subjects.WALLET_LEADERBOARD, LeaderboardQuery(limit=100), Leaderboard)
    assert not [e for e in board.entries if e.account_id.startswith("chips:")]
    gone = await refused(call(bus, subjects.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id=tid), ChipsMoved))
    assert gone.code is ErrorCode.CONFLICT and gone.details.get("reason") == "chips_at_table"
    for p in stacks:  # nobody leaves a tournament table with its chips: asking sits them out
        assert (await cmd(bus, t, Leave(participant_id=p))).status == "sit_out"
    assert (await chips_of(bus, tid, next(iter(stacks)))).reserved > 0
    await call(bus, subjects.TABLE_CLOSE, CloseTable(table_id=t), TableSummary)  # every seat cashed out
    retired = await call(bus, subjects.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id=tid), ChipsMoved)
    assert retired.issuer == 0 and sum(m.amount for m in retired.transfers) == 3000
    assert await call(bus, subjects.WALLET_CHIPS_RETIRE, ChipsRetire(ledger_id=tid), ChipsMoved) == retired
    for p in pids:
        mine = await chips_of(bus, tid, p)
        assert (mine.available, mine.reserved) == (0, 0) and await balance(bus, p) == paper[p]
    late = ChipsIssue(ledger_id=tid, issue_id="late", stacks=[ChipsStack(participant_id=pids[0], amount=5)])
    assert (await refused(call(bus, subjects.WALLET_CHIPS_ISSUE, late, ChipsMoved))).code is ErrorCode.CONFLICT


async def test_a_tournament_tables_hand_histories_name_the_tournament_and_the_level(stack: Any, bus: Any) -> None:
    tid, host = uid("c"), uid("host")
    pids = [(await player(bus))[0] for _ in range(2)]
    issue = ChipsIssue(ledger_id=tid, issue_id="start", stacks=[ChipsStack(participant_id=p, amount=900) for p in pids])
    await call(bus, subjects.WALLET_CHIPS_ISSUE, issue, ChipsMoved)
    cfg: dict[str, Any] = dict(small_blind=10, big_blind=20, min_buy_in=20, max_buy_in=900, level=1)
    t = await create_table(bus, chips=tid, host_id=host, **cfg)
    for p in pids:
        await cmd(bus, t, Join(participant_id=p, owner_id=f"o-{p}", kind="agent", buy_in=900))
    await play_hands(bus, t, pids, 1)
    level2 = Host(participant_id=host, control="blinds", small_blind=15, big_blind=30, ante=5, level=2)
    assert (await cmd(bus, t, level2)).status == "now"
    await play_hands(bus, t, pids, 2)
    hands = (await cmd(bus, t, ListHands())).hands
    assert len(hands) == 2
    for summary, (level, sb, bb, ante) in zip(reversed(hands), [(1, 10, 20, 0), (2, 15, 30, 5)]):
        h = (await cmd(bus, t, GetHand(hand_id=summary.hand_id, viewer=pids[0], format="phh"))).hand
        assert h is not None and h.phh is not None
        expected = TournamentHand(tournament_id=tid, level=level, small_blind=sb, big_blind=bb, ante=ante)
        assert h.tournament == expected
        phh = tomllib.loads(h.phh)
        assert (phh["event"], phh["level"], phh["antes"]) == (tid, level, [ante, ante])
        assert sorted(phh["blinds_or_straddles"]) == [sb, bb]
