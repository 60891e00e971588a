"""Absent players (real NATS, Redis, wallet, limits, timer): turns that time out twice in a row
sit a seat out (explicit-start tables stop waiting for it), a seat sat out long enough leaves
and is cashed out; an empty stack with nothing to rebuy with is not kept; an ante-nl-1 leave
folds and frees the seat at once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from felt_contracts.table import Act, GetView, Join, Leave, SetAutoRebuy
from felt_wallet.settings import WalletSettings
from tests.support.services import ServiceRunner
from tests.table.conftest import balance, cmd, create_table, start_stack
from tests.table.test_player_options import ante_players, deal, events, seat, wait_for, wait_hand

LEAVE_AFTER = 1.0  # seconds sat out before the seat leaves (the setting; 10 minutes by default)


@pytest.fixture(scope="module")
def stack(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("absent"))
    yield start_stack(runner, felt_table_absent_timeouts="2", felt_table_sit_out_leave_seconds=str(LEAVE_AFTER))
    runner.stop_all()


def actor(view: Any) -> str:
    return next(s.participant_id for s in view.seats if s.seat == view.hand.actor_seat_id)


async def all_in_until_busted(bus: Any, t: str, pids: list[str], tries: int) -> str:
    """Deal and go all in (drawing where the game draws) until a session closes busted (a split
    pot: again); the loser's participant id."""
    for _ in range(tries):
        seq = (await cmd(bus, t, GetView())).view.seq
        await deal(bus, t, pids)
        for _ in range(20):
            v = (await cmd(bus, t, GetView())).view
            if v.hand.phase == "over":
                break
            who = actor(v)
            legal = (await cmd(bus, t, GetView(viewer=who))).view.hand.legal_actions
            action = "draw" if legal.draw is not None else "allIn" if legal.all_in is not None else "call"
            await cmd(bus, t, Act(participant_id=who, action=action))
        busted = [e for e in await events(bus, t, seq) if e.kind == "session_closed" and e.detail == "busted"]
        if busted:
            return busted[0].participant_id
    raise AssertionError("nobody lost everything")


async def play_hand(bus: Any, t: str, silent: str) -> None:
    """Everyone but `silent` checks or calls; `silent` never answers (its turns time out)."""
    for _ in range(200):
        v = (await cmd(bus, t, GetView())).view
        if v.hand is None or v.hand.phase == "over":
            return
        who = actor(v)
        if who == silent:
            await asyncio.sleep(0.05)
            continue
        legal = (await cmd(bus, t, GetView(viewer=who))).view.hand.legal_actions
        await cmd(bus, t, Act(participant_id=who, action="check" if legal.check else "call"))
    raise AssertionError("hand did not end")


async def test_an_agent_that_stops_answering_is_sat_out_then_removed_with_its_chips(stack, bus):
    t = await create_table(bus, turn_seconds=0.3)
    a, b, silent = await seat(bus, t, [50, 50, 50])
    seq = (await cmd(bus, t, GetView())).view.seq
    for _ in range(4):  # two timeouts in a row: at most a few hands
        await deal(bus, t, [a, b, silent])
        await play_hand(bus, t, silent)
        if any(e.kind == "sit_out" and e.detail == "timeouts" for e in await events(bus, t, seq)):
            break
    else:
        raise AssertionError("never sat out")
    sat = next(e for e in await events(bus, t, seq) if e.kind == "sit_out")
    assert sat.participant_id == silent
    assert [e.kind for e in await events(bus, t, seq) if e.participant_id == silent and e.kind in ("fold", "check")]
    # an explicit-start table does not wait for the absent seat: two ready players start
    v = await deal(bus, t, [a, b])
    assert silent not in [s.participant_id for s in v.hand.seats]
    left, _ = await wait_for(bus, t, sat.seq, "left", detail="absent", timeout=LEAVE_AFTER + 5)
    assert left.participant_id == silent
    bal = await balance(bus, silent)
    assert (bal.reserved, bal.in_play) == (0, 0)
    assert bal.available == WalletSettings().grant - 50 + left.amount and left.amount > 0
    assert silent not in [s.participant_id for s in (await cmd(bus, t, GetView())).view.seats]


async def test_an_empty_stack_with_nothing_to_rebuy_with_is_not_kept(stack, bus):
    grant = WalletSettings().grant
    t = await create_table(
        bus,
        rules_version="draw5-1",
        small_blind=0,
        big_blind=0,
        ante=5,
        min_buy_in=5,
        max_buy_in=grant + 50,
        auto_rebuy=True,
    )
    pids = await seat(bus, t, [grant, grant])  # the whole balance at the table: nothing left to rebuy with
    for p in pids:
        await cmd(bus, t, SetAutoRebuy(participant_id=p, enabled=True))
    loser = await all_in_until_busted(bus, t, pids, tries=5)
    assert loser not in [s.participant_id for s in (await cmd(bus, t, GetView())).view.seats]
    assert (await balance(bus, loser)).reserved == 0


async def test_ante_nl_leave_folds_and_frees_the_seat_at_once(stack, bus):
    t = await create_table(bus, rules_version="ante-nl-1")
    players = await ante_players(bus, t, 3)
    v = await wait_hand(bus, t)
    leaver = actor(v)
    assert (await cmd(bus, t, Leave(participant_id=leaver))).status == "left"
    after = (await cmd(bus, t, GetView())).view
    assert leaver not in [s.participant_id for s in after.seats]  # no lobby membership any more
    mine = next(s for s in after.hand.seats if s.participant_id == leaver)
    assert mine.folded and mine.committed == 10  # the ante stays in the pot
    assert (await balance(bus, leaver)).in_play == 10
    owner = next(o for p, o in players if p == leaver)
    other = await create_table(bus, rules_version="ante-nl-1")
    with pytest.raises(Exception) as e:  # the chips in the hand settle first
        await cmd(bus, other, Join(participant_id=leaver, owner_id=owner, kind="agent"))
    assert getattr(e.value, "code", None) == "chips_in_play"
