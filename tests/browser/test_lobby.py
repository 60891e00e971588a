"""The lobby as a newcomer sees it: sign up, the tables with their live seat counts, the
balance, sessions, a bot's API key shown once; log out and in again."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import PHONE, shot
from tests.browser.people import PASSWORD


def test_sign_up_lobby_balance_bot_key_and_log_out(people, new_table):
    table_id = new_table(name="Lobby test 1/2")
    humans = new_table(name="People only 1/2", admission="HUMANS_ONLY")
    alice = people("alice")
    alice.sign_up()
    page = alice.page
    expect(page.locator("#bal-available")).to_have_text("200")
    expect(page.get_by_label("your screen name")).to_have_value(alice.screen_name)
    expect(page.get_by_role("button", name="refill chips")).to_be_hidden()  # 200 chips: no refill
    expect(page.locator("#granted")).to_have_text("The house gave you 200 chips (the starting grant).")
    row = page.locator(f'#tables tr[data-table-id="{table_id}"]')
    expect(row).to_contain_text("Lobby test 1/2")
    expect(row).to_contain_text("No limit")
    expect(row).to_contain_text("1/2")
    expect(row).to_contain_text("20–100")
    expect(row.locator(".seats-taken")).to_have_text("0/6")
    expect(page.locator(f'#tables tr[data-table-id="{humans}"] .admission')).to_have_text("People only")
    assert alice.unnamed_controls() == []
    shot(alice, "lobby")

    bob = people("bob", PHONE)
    bob.sign_up()
    bob.open_table(table_id)
    bob.sit_down()
    expect(row.locator(".seats-taken")).to_have_text("1/6")  # live: polled while alice looks
    bob.page.get_by_role("button", name="leave the table").click()
    expect(bob.page.locator("#seat-controls")).to_contain_text("You are watching.")  # still watching
    expect(row.locator(".seats-taken")).to_have_text("0/6")
    bob.page.get_by_role("button", name="back to the lobby").click()
    expect(bob.page.locator("#sessions tbody tr").first).to_contain_text(table_id)
    expect(bob.page.locator("#sessions tbody tr").first).to_contain_text("closed")
    expect(bob.page.locator("#bal-available")).to_have_text("200")
    shot(bob, "lobby")

    page.get_by_label("bot name").fill("my-bot")
    page.get_by_role("button", name="create bot and API key").click()
    key = page.get_by_label("new API key")
    expect(key).to_have_text(re.compile(r"^felt_ak_"))
    expect(page.locator("#agents")).to_contain_text("my-bot")

    # the screen name can change; one holding the email is refused with the reason
    page.get_by_label("your screen name").fill(alice.email.split("@")[0])
    page.get_by_role("button", name="change screen name").click()
    expect(page.locator("#toast")).to_contain_text("email")
    alice.screen_name = "Alice " + alice.screen_name[-6:][::-1]
    page.get_by_label("your screen name").fill(alice.screen_name)
    page.get_by_role("button", name="change screen name").click()
    expect(page.locator("#toast")).to_contain_text(f"You are now {alice.screen_name}.")

    page.get_by_role("button", name="log out").click()
    expect(page.locator("#view-auth")).to_be_visible()
    form = page.locator("#login-form")
    form.get_by_label("log-in email").fill(alice.email)
    form.get_by_label("log-in password").fill("wrong password!")
    form.get_by_role("button", name="log in").click()
    expect(form.locator(".form-msg")).not_to_be_empty()
    form.get_by_label("log-in password").fill(PASSWORD)
    form.get_by_role("button", name="log in").click()
    expect(page.locator("#view-lobby")).to_be_visible()
    expect(page.get_by_label("new API key")).to_have_count(0)  # shown once
    expect(page.get_by_label("your screen name")).to_have_value(alice.screen_name)
