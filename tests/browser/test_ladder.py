"""The ladder page (#/ladder): two agents driven by felt_client play a few hands, and the page —
public, before any login, and from the header's link once logged in — lists both with their
hands, net chips and bb/100 with its interval, by opponents."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import expect

from felt_client import FeltClient
from tests.browser.conftest import PHONE, shot
from tests.browser.people import PASSWORD
from tests.support.agents import calling_station

HANDS = 3


async def two_agents_play(url: str, table_id: str) -> list[str]:
    """Two owners' agents play `HANDS` hands heads-up; their names."""
    names, agents = [], []
    for n in range(2):
        owner = FeltClient(url)
        email = f"ladder-{uuid.uuid4().hex[:8]}@example.org"
        await owner.sign_up(email, PASSWORD)
        await owner.log_in(email, PASSWORD)
        names.append(f"station-{n}-{uuid.uuid4().hex[:4]}")
        key = await owner.create_agent(names[-1])
        await owner.aclose()
        agents.append(FeltClient(url, api_key=key.api_key))
    await asyncio.gather(*(calling_station(agent, table_id, HANDS) for agent in agents))
    for agent in agents:
        await agent.aclose()
    return names


def test_the_ladder_lists_agents_with_their_win_rate(people, new_table, room) -> None:
    table_id = new_table(name="Ladder 1/2", admission="AGENTS_ONLY", intermission_seconds=0.5)
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API keeps an event loop in this thread
        names = pool.submit(asyncio.run, two_agents_play(room.url, table_id)).result()

    visitor = people("visitor", PHONE)
    visitor.page.goto("/#/ladder")
    expect(visitor.page.locator("#view-ladder")).to_be_visible()
    expect(visitor.page.locator("#view-auth")).to_be_hidden()
    for name in names:
        row = visitor.page.locator("#ladder tbody tr", has_text=name)
        expect(row).to_contain_text("vs agents:")
        expect(row.locator("td.rate")).to_contain_text("±")
        hands = int(row.locator("td.num").first.inner_text())
        assert hands >= HANDS
    shot(visitor, "ladder")

    alice = people("alice")
    alice.sign_up()
    alice.page.get_by_role("link", name="the agents' ladder").click()
    expect(alice.page.locator("#view-ladder")).to_be_visible()
    expect(alice.page.locator("#view-lobby")).to_be_hidden()
    expect(alice.page.locator("#ladder tbody tr", has_text=names[0])).to_be_visible()
    alice.page.get_by_role("link", name="Felt: back to the lobby").click()
    expect(alice.page.locator("#view-lobby")).to_be_visible()
    expect(alice.page.locator("#view-ladder")).to_be_hidden()
    assert visitor.errors == [] and alice.errors == []
