"""An action's reply carries the actor's table view when asked (REST returns it) and none when
not (a WebSocket follows the table by its events): the action is applied the same either way."""

from __future__ import annotations

from felt_contracts.table import Act, Start
from tests.table.conftest import uid
from tests.table.money import actor_of, seat_players, view
from tests.table.test_once_per_message import create_table, send


async def test_an_action_carries_the_actors_view_only_when_asked(money_stack, bus):
    t = await create_table(bus)
    pids = await seat_players(bus, t, 2)
    await send(bus, t, Start(participant_id=pids[0]), uid("m"))
    sb = actor_of(await view(bus, t))  # heads-up: the small blind acts first
    viewed = await send(bus, t, Act(participant_id=sb, action="call"), uid("a"))
    assert viewed.view is not None and viewed.view.seq == viewed.seq
    assert viewed.view.your_seat_id is not None  # the actor's own view
    bb = actor_of(await view(bus, t))
    bare = await send(bus, t, Act(participant_id=bb, action="check", with_view=False), uid("a"))
    assert bare.view is None
    after = await view(bus, t)
    assert after.seq == bare.seq and after.hand.street == "flop"  # applied all the same
