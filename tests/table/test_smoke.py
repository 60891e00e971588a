import pytest

from felt_runtime.bus import BusError
from felt_contracts.table import Act, GetView, Join, Start

from tests.table.conftest import balance, cmd, create_table, player


async def test_two_players_play_a_hand(stack, bus):
    t = await create_table(bus)
    a, oa = await player(bus)
    b, ob = await player(bus)
    r = await cmd(bus, t, Join(participant_id=a, owner_id=oa, kind="agent", buy_in=100))
    assert r.seat == 1
    await cmd(bus, t, Join(participant_id=b, owner_id=ob, kind="agent", buy_in=100))
    with pytest.raises(BusError) as e:
        await cmd(bus, t, Start(participant_id=b))
    assert e.value.code == 'conflict' and e.value.details['reason'] == 'not_enough_ready'
    r = await cmd(bus, t, Start(participant_id=a))
    assert r.status == "started"
    v = (await cmd(bus, t, GetView(viewer=a))).view
    assert v.hand is not None and v.your_seat_id == 1
    actor = v.hand.actor_seat_id
    pid = a if actor == 1 else b
    await cmd(bus, t, Act(participant_id=pid, action="fold"))
    v = (await cmd(bus, t, GetView(viewer=a))).view
    assert v.hand.phase == "over"
    ba, bb = await balance(bus, a), await balance(bus, b)
    assert ba.available + ba.reserved + bb.available + bb.reserved == 400
    assert ba.in_play == 0 and bb.in_play == 0
