"""A person plays the default room's recurring Sit & Go in the browser: registers on the
Tournaments tab, the bots fill the other seats after their wait, the page opens the table the
tournament seats them at, they play (check, call) through the page until they are out or won,
are told their place, and see the results page with every place and prize."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot
from tests.browser.people import Person
from tests.gateway.conftest import running_stack
from tests.support.gateway import Stack
from tests.support.servers import nats_server, redis_server
from tests.tournament.conftest import short_template


@pytest.fixture(scope="module")
def room(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A room whose recurring Sit & Go is short (small stacks, blinds doubling every few seconds)
    and whose bots fill it two seconds after a person registers — on a NATS and Valkey of its
    own: the browser tests' shared room, when it runs, serves the same queue groups."""
    workdir = tmp_path_factory.mktemp("browser-sng")
    db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    env: dict[str, dict[str, str]] = {
        "tournament": {"FELT_TOURNAMENT_RECURRING_FILE": short_template(workdir / "sng.json", 300, 8)},
        "table": {"FELT_TABLE_INTERMISSION_SECONDS": "1"},
    }
    with (
        nats_server(tmp_path_factory.mktemp("sng-nats")) as nats_url,
        redis_server(tmp_path_factory.mktemp("sng-redis")) as redis_url,
        running_stack(nats_url, redis_url, workdir, db, **env) as stack,
    ):
        bots = stack.runner.start(
            "bots",
            FELT_BOTS="0",
            FELT_BOTS_GATEWAY_URL=stack.url,
            FELT_BOTS_THINK_SECONDS="0",
            FELT_BOTS_FILL_SECONDS="2",
            ready=False,
        )
        bots.wait_ready(timeout=90)
        yield stack


#: every text the toast shows, kept by the page itself: a toast lasts seconds, and a loaded
#: machine can spend longer than that between two looks from the test
KEEP_TOASTS = """() => {
  window.toasts = [];
  const toast = document.querySelector('#toast');
  new MutationObserver(() => { if (!toast.hidden) window.toasts.push(toast.textContent); })
    .observe(toast, { attributes: true, childList: true, characterData: true, subtree: true });
}"""


def play_until_placed(person: Person, seconds: float) -> list[str]:
    """Check or call on every turn the page gives; the messages seen until the place is told."""
    page = person.page
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen: list[str] = page.evaluate("() => window.toasts")
        if any(re.search(r"You (won|finished)", text) for text in seen):
            return seen
        if "#/table/" in page.url and person.my_turn():
            for button in ("#act-check", "#act-call", "#act-fold"):
                if page.locator(button).is_visible():
                    page.locator(button).click(timeout=5_000)
                    break
        page.wait_for_timeout(150)
    raise AssertionError(f"no place was told in {seconds} s; messages: {page.evaluate('() => window.toasts')}")


def test_a_person_registers_for_the_sit_and_go_plays_busts_or_wins_and_sees_the_results(
    people: Any, room: Stack
) -> None:
    ann = people("ann")
    ann.sign_up()
    page = ann.page
    page.evaluate(KEEP_TOASTS)
    page.get_by_role("link", name="tournaments").click()
    open_group = page.locator('[data-group="registering"]')
    expect(open_group.locator('tr[data-tournament-id="sng-six-1"]')).to_contain_text("0/6")
    shot(ann, "tournaments-lobby")
    open_group.get_by_role("link", name=re.compile("open tournament")).first.click()
    page.get_by_role("button", name="register", exact=True).click()
    expect(page.locator("#your-result")).to_have_text("You are registered.")
    page.get_by_role("button", name="unregister", exact=True).click()  # and back: the buy-in returns
    expect(page.get_by_role("button", name="register", exact=True)).to_be_visible()
    page.get_by_role("button", name="register", exact=True).click()
    expect(page.locator("#your-result")).to_have_text("You are registered.")

    # filled by bots and started: the page opens the table the tournament seats her at
    expect(page.locator("#view-table")).to_be_visible(timeout=90_000)
    expect(page.locator(".seat.mine")).to_be_visible()
    shot(ann, "tournament-table")
    told = next(t for t in play_until_placed(ann, seconds=200) if re.search(r"You (won|finished)", t))
    place = int(re.search(r"(\d+)(st|nd|rd|th)|won", told).group(1) or 1)

    page.goto(f"{room.url}/#/tournament/sng-six-1")
    expect(page.locator("#tournament")).to_have_attribute("data-status", "finished", timeout=120_000)
    expect(page.locator("#results tbody tr")).to_have_count(6)
    expect(page.locator("#your-result")).to_contain_text(re.compile(r"You finished \d"))
    expect(page.locator("#results tr", has_text="You")).to_contain_text(re.compile(rf"^{place}"))
    expect(page.locator("#results tbody")).to_contain_text("(easy)")  # the bots by their names
    shot(ann, "tournament-results")
    assert ann.errors == []
