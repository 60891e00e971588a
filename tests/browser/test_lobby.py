"""The lobby as a newcomer sees it: sign up, the tables with their live seat counts and what is
left of a limited one, the balance, sessions, a bot's API key shown once; log out and in again."""

from __future__ import annotations

import asyncio
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
from faststream.nats import NatsBroker
from playwright.sync_api import expect

from felt_contracts import subjects
from felt_contracts.wallet import Commit, CommitResult, HandOutcome, Payout, Settle
from felt_runtime.bus import call

from tests.browser.conftest import PHONE, shot
from tests.browser.people import PASSWORD


def test_sign_up_lobby_balance_bot_key_and_log_out(people, new_table):
    table_id = new_table(name="Lobby test 1/2")
    humans = new_table(name="People only 1/2", admission="HUMANS_ONLY")
    limited = new_table(name="Short game 1/2", max_hands=10, closes_at=datetime.now(UTC) + timedelta(minutes=30))
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
    left = page.locator(f'#tables tr[data-table-id="{limited}"] .left')
    expect(left).to_have_text(re.compile(r"^10 hands left · (29|30) min left$"))
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


def _participant(room, person) -> str:
    me = httpx.get(f"{room.url}/api/v2/accounts/me", headers={"Authorization": f"Bearer {person.token()}"}, timeout=30)
    return me.json()["participantId"]


def lose(nats_url: str, loser: str, winner: str, amount: int) -> None:
    """`loser` loses `amount` to `winner` in a hand the wallet settles (both contributed)."""

    async def hand() -> None:
        broker = NatsBroker(nats_url)
        await broker.connect()
        try:
            table, hand_id = "lost", f"lost-{uuid.uuid4().hex[:16]}"
            for seq, (who, chips) in enumerate([(loser, amount), (winner, 1)]):
                commit = Commit(
                    account_id=who, table_id=table, hand_id=hand_id, seq=seq, amount=chips, from_available=True
                )
                await call(broker, subjects.WALLET_COMMIT, commit, CommitResult)
            pay = [Payout(account_id=winner, amount=amount + 1)]
            await call(
                broker, subjects.WALLET_SETTLE, Settle(table_id=table, hand_id=hand_id, payouts=pay), HandOutcome
            )
        finally:
            await broker.stop()

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API keeps an event loop in this thread
        pool.submit(asyncio.run, hand()).result()


def test_the_refill_button_shows_only_while_a_refill_applies(people, room, nats_url):
    carol, dave = people("carol"), people("dave")
    carol.sign_up()
    dave.sign_up()
    refill = carol.page.get_by_role("button", name="refill chips")
    expect(carol.page.locator("#bal-available")).to_have_text("200")
    expect(refill).to_be_hidden()
    lose(nats_url, _participant(room, carol), _participant(room, dave), 170)  # 30 left: below the smallest buy-in
    expect(carol.page.locator("#bal-available")).to_have_text("30", timeout=20_000)  # the header polls the balance
    expect(refill).to_be_visible()
    expect(refill).to_have_text("Refill chips (+170)")
    shot(carol, "refill")
    refill.click()
    expect(carol.page.locator("#toast")).to_contain_text("The house gave you 170 chips")
    expect(carol.page.locator("#bal-available")).to_have_text("200")
    expect(refill).to_be_hidden()  # 200 chips, and today's refill is claimed
    expect(dave.page.get_by_role("button", name="refill chips")).to_be_hidden()
    carol.page.locator("#sessions-refresh").click()
    expect(carol.page.locator("#granted")).to_have_text("The house gave you 370 chips, 170 of them in refills.")
