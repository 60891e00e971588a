"""A home game in the page: a person creates a private hold'em table limited to 20 hands (a bad
field refused next to its input), copies the invite link; a friend opens it and asks to sit,
the host approves and adds a Hard bot; they play, the host raises the blinds between two hands
and both see it; after hand 20 the table closes and both sessions show their net. Someone not
invited finds the table neither in the lobby nor by its id."""

from __future__ import annotations

import re
import time

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, shot
from tests.browser.people import Person
from tests.support.gateway import Stack
from tests.support.services import ServiceProcess

HANDS = 20
BLINDS_FROM = 4  # the host raises the blinds once this many hands are over
CALL_AT_MOST = 8  # a person calls up to this much, else folds: nobody busts before the limit


@pytest.fixture(scope="module")
def bots(room: Stack) -> Iterator[ServiceProcess]:
    """The bots service, seating none by itself: the host adds one."""
    proc = room.runner.start(
        "bots", FELT_BOTS="0", FELT_BOTS_GATEWAY_URL=room.url, FELT_BOTS_THINK_SECONDS="0.2", ready=False
    )
    proc.wait_ready(timeout=90)  # a loaded machine imports slowly
    yield proc
    proc.stop()


def host_a_table(host: Person) -> str:
    """Fill the "New table" form (a refused field first), create the table, copy its invite link."""
    page = host.page
    page.get_by_role("button", name="new table: host a game").click()
    form = page.locator("#new-table-form")
    form.get_by_label("table name").fill("Hana's home game")
    form.get_by_label("game", exact=True).select_option("nlhe-1")
    form.get_by_label("seats").fill("12")  # nlhe-1 seats 2 to 9
    form.get_by_label("limit", exact=True).select_option("maxHands")
    form.get_by_label("limit value").fill(str(HANDS))
    form.get_by_label("private: by invite link only").check()
    form.get_by_label("require approval").check()
    form.get_by_role("button", name="create the table").click()
    expect(form.locator("#error-seats")).to_be_visible()  # next to the field the room named
    expect(form.get_by_label("seats")).to_have_attribute("aria-invalid", "true")
    shot(host, "new-table-refused")
    form.get_by_label("seats").fill("6")
    expect(form.locator(".field-error")).to_have_count(0)  # gone once the field changes
    assert host.unnamed_controls() == []
    shot(host, "new-table-form")
    form.get_by_role("button", name="create the table").click()

    link = page.get_by_label("invite link", exact=True)
    expect(link).to_have_value(re.compile(r"/t/[A-Za-z0-9_-]{16,}$"))
    page.get_by_role("button", name="copy the invite link").click()
    expect(page.locator(".copy-said")).to_contain_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == link.input_value()
    page.get_by_role("button", name="go to your table").click()
    expect(page.locator("#table-title")).to_have_text("Hana's home game")
    expect(page.locator("#table-left")).to_have_text(f"{HANDS} hands left")
    return copied


def table_id_of(person: Person) -> str:
    match = re.search(r"#/table/([a-z0-9_-]+)$", person.page.url)
    assert match, person.page.url
    return match.group(1)


def act_simply(person: Person) -> None:
    """Check when free, call a small bet, fold to a big one; then see the turn end."""
    page = person.page
    turn = person.action_bar.get_attribute("data-turn")
    if not turn:
        return
    check, call = page.locator("#act-check"), page.locator("#act-call")
    if check.count():
        button = check
    elif call.count() and int(re.sub(r"\D", "", call.inner_text().split("\n")[0])) <= CALL_AT_MOST:
        button = call
    else:
        button = page.locator("#act-fold")
    try:
        button.click(timeout=3000)
        expect(person.action_bar).not_to_have_attribute("data-turn", turn, timeout=10_000)
    except AssertionError:
        pass  # the turn ended otherwise (its clock): the next look decides again
    except Exception as exc:  # the button went with a redraw; the next look decides again
        if "Timeout" not in type(exc).__name__:
            raise


def hands_left(person: Person) -> int | None:
    match = re.search(r"(\d+) hands? left", person.page.locator("#table-left").inner_text())
    return int(match.group(1)) if match else None


def play(pair: tuple[Person, Person], until, timeout: float) -> None:
    """Both people play (check / call / fold) until `until()` holds."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "the game did not get there in time"
        for p in pair:
            if p.my_turn():
                act_simply(p)
        pair[0].page.wait_for_timeout(150)


def test_a_private_home_game_from_the_invite_to_the_last_hand(people, room, bots):
    host, guest, stranger = people("hana"), people("gus", PHONE), people("sam")
    host.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    for p in (host, guest, stranger):
        p.sign_up()
    link = host_a_table(host)
    table_id = table_id_of(host)
    host.sit_down(buy_in=100)  # the host sits without asking

    # --- someone not invited: not in the lobby, not by the table's id ----------------------
    expect(stranger.page.locator("#tables tbody tr").first).to_be_visible()
    expect(stranger.page.locator(f'#tables tr[data-table-id="{table_id}"]')).to_have_count(0)
    stranger.page.goto(f"/#/table/{table_id}")
    expect(stranger.page.locator(".centre")).to_contain_text("No such table")
    expect(stranger.page.get_by_role("button", name="sit down")).to_have_count(0)
    auth = {"Authorization": f"Bearer {stranger.token()}"}
    join = httpx.post(f"{room.url}/api/v2/poker/tables/{table_id}/join", json={}, headers=auth, timeout=30)
    assert join.status_code in (403, 404), join.text
    assert join.json()["code"] in ("not_found", "invite_invalid")

    # --- the friend opens the link and asks to sit; the host approves ----------------------
    guest.page.goto(link)
    expect(guest.page.locator("#table-title")).to_have_text("Hana's home game")
    expect(guest.page).to_have_url(re.compile(rf"/#/table/{table_id}$"))
    guest.page.get_by_role("button", name="sit down").click()
    expect(guest.page.locator("#seat-controls")).to_contain_text("Waiting for the host's approval")
    shot(guest, "waiting-for-approval")
    panel = host.page.get_by_label("host controls")
    expect(panel.locator("#host-requests")).to_contain_text(guest.screen_name)
    expect(host.page.locator("#table-log")).to_contain_text(f"{guest.screen_name} asks to sit")
    panel.get_by_role("button", name=f"accept {guest.screen_name}").click()
    expect(guest.page.locator(".seat.mine")).to_be_visible()
    expect(panel.locator("#host-requests")).to_contain_text("Nobody is waiting")

    # --- a Hard bot ----------------------------------------------------------------------------
    panel.get_by_label("bot level").select_option("hard")
    panel.get_by_role("button", name="add a bot").click()
    expect(host.page.locator(".seat:not(.empty)")).to_have_count(3)
    expect(panel.get_by_role("button", name=re.compile("^remove bot "))).to_have_count(1)
    assert host.unnamed_controls() == []
    shot(host, "host-panel")

    # --- they play; the host raises the blinds between two hands ----------------------------
    pair = (host, guest)
    play(pair, lambda: hands_left(host) == HANDS - BLINDS_FROM, timeout=600)
    panel.get_by_label("next hand's small blind").fill("2")
    panel.get_by_label("next hand's big blind").fill("4")
    panel.get_by_role("button", name="set the stakes for the next hand").click()
    for p in pair:
        expect(p.page.locator("#table-log")).to_contain_text("changed the stakes to 2/4", timeout=60_000)
    play(pair, lambda: "2/4" in host.page.locator("#table-meta").inner_text(), timeout=120)
    for p in pair:
        expect(p.page.locator("#table-meta")).to_contain_text("2/4")
    # the next hand's big blind posts 4 (seen at the first turn of either person)
    play(pair, lambda: host.my_turn() or guest.my_turn(), timeout=120)
    seen = host if host.my_turn() else guest
    big_blind = seen.page.locator('.seat:has(.badge.blind:text-is("BB"))').get_attribute("data-seat")
    expect(seen.page.get_by_label(f"seat {big_blind} bet 4")).to_be_visible()

    # --- hand 20 is the last: the table closes, everyone is cashed out ---------------------
    play(pair, lambda: "closed" in host.page.locator("#table-left").inner_text(), timeout=900)
    for p in pair:
        expect(p.page.locator("#table-left")).to_have_text("closed")
        expect(p.page.locator("#seat-controls")).to_contain_text("This table is closed.")
        expect(p.page.locator("#table-log")).to_contain_text("The table is closed after its last hand")
        expect(p.page.locator("#bal-reserved")).to_have_text("0")
        expect(p.page.locator("#bal-inplay")).to_have_text("0")
        p.page.get_by_role("button", name="back to the lobby").click()
        row = p.page.locator("#sessions tbody tr", has_text=table_id)
        expect(row).to_contain_text("closed")
        net = int(row.locator("td").nth(4).inner_text().replace(",", "").replace("+", ""))
        expect(p.page.locator("#bal-available")).to_have_text(f"{200 + net:,}")
        assert p.errors == []


def test_the_host_pauses_removes_revokes_and_closes(people, room, bots):
    """At a private table where nobody deals yet: pause and resume, a bot added and removed, a player
    removed (who cannot sit again), the invite revoked (the link stops working) and made again, a
    request to sit declined, the table closed."""
    host, guest, late = people("ida"), people("joe"), people("kim")
    for p in (host, guest, late):
        p.sign_up()
    page = host.page
    page.get_by_role("button", name="new table: host a game").click()
    form = page.locator("#new-table-form")
    form.get_by_label("table name").fill("Ida's quiet table")
    form.get_by_label("start mode").select_option("EXPLICIT")
    form.get_by_label("private: by invite link only").check()
    form.get_by_label("require approval").check()
    form.get_by_role("button", name="create the table").click()
    link = page.get_by_label("invite link", exact=True).input_value()
    page.get_by_role("button", name="go to your table").click()
    panel = page.get_by_label("host controls")
    expect(panel).to_be_visible()

    guest.page.goto(link)
    guest.page.get_by_role("button", name="sit down").click()
    panel.get_by_role("button", name=f"accept {guest.screen_name}").click()
    expect(guest.page.locator(".seat.mine")).to_be_visible()
    expect(panel).to_contain_text(guest.screen_name)

    panel.get_by_role("button", name="pause the game").click()
    for p in (host, guest):
        expect(p.page.locator("#table-left")).to_contain_text("paused")
        expect(p.page.locator("#table-log")).to_contain_text("The host paused the table")
    panel.get_by_role("button", name="resume the game").click()
    for p in (host, guest):
        expect(p.page.locator("#table-left")).not_to_contain_text("paused")
        expect(p.page.locator("#table-log")).to_contain_text("The host resumed the game")

    panel.get_by_label("bot level").select_option("easy")
    panel.get_by_role("button", name="add a bot").click()
    expect(page.locator(".seat:not(.empty)")).to_have_count(2)  # the guest and the bot (the host watches)
    panel.get_by_role("button", name=re.compile("^remove bot ")).click()
    expect(page.locator(".seat:not(.empty)")).to_have_count(1)
    expect(panel.get_by_role("button", name=re.compile("^remove bot "))).to_have_count(0)

    panel.get_by_role("button", name=f"remove {guest.screen_name}").click()
    expect(guest.page.locator("#table-log")).to_contain_text(f"The host removed {guest.screen_name}")
    expect(guest.page.locator(".seat.mine")).to_have_count(0)
    guest.page.get_by_role("button", name="sit down").click()
    expect(guest.page.locator("#toast")).to_be_visible()  # refused: removed for the table's life
    expect(guest.page.locator(".seat.mine")).to_have_count(0)

    panel.get_by_role("button", name="revoke the invite link").click()
    expect(panel.get_by_label("invite link", exact=True)).to_have_count(0)
    late.page.goto(link)
    expect(late.page.locator("#toast")).to_contain_text("This invite link does not work")
    expect(late.page).to_have_url(re.compile(r"/#/lobby$"))
    panel.get_by_role("button", name="make a new invite link").click()
    fresh = panel.get_by_label("invite link", exact=True)
    expect(fresh).to_have_value(re.compile(r"/t/[A-Za-z0-9_-]{16,}$"))
    assert fresh.input_value() != link
    late.page.goto(fresh.input_value())
    expect(late.page.locator("#table-title")).to_have_text("Ida's quiet table")
    late.page.get_by_role("button", name="sit down").click()
    expect(late.page.locator("#seat-controls")).to_contain_text("Waiting for the host's approval")
    panel.get_by_role("button", name=f"decline {late.screen_name}").click()
    expect(late.page.locator("#toast")).to_contain_text("The host declined your request to sit.")
    expect(late.page.locator("#seat-controls")).to_contain_text("You are watching.")

    close = panel.get_by_role("button", name="close the table")
    close.click()
    expect(close).to_have_text("Really close? Click again")
    close.click()
    expect(page.locator("#table-left")).to_have_text("closed")
    expect(page.locator("#table-log")).to_contain_text("The host closed the table")
    expect(panel).to_be_hidden()
    assert host.errors == [] and guest.errors == [] and late.errors == []
