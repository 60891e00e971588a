"""Bad input from the page: a bet outside the legal bounds, a double click, acting after the
deadline, a chat message over 500 characters, a chat flood and a sign-up the form check refuses.
Each shows a clear message, and no action is ever sent twice."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.people import Person
from tests.browser.test_play import other, whose_turn


def seated_pair(people, table: str) -> tuple[Person, Person]:
    pair = (people("erin"), people("frank"))
    for p in pair:
        p.sign_up()
        p.open_table(table)
        p.sit_down()
    return pair


def test_out_of_bounds_bets_double_clicks_and_long_or_fast_chat(people, new_table):
    table = new_table(name="Bad input 1/2")
    pair = seated_pair(people, table)
    actor = whose_turn(*pair)
    page = actor.page
    amount = page.get_by_label("bet amount")
    raise_button = page.locator("#act-raise")
    for typed in ("3", "5000", "4.5"):
        amount.fill(typed)
        expect(page.locator("#amount-msg")).to_have_text("Raise to must be a whole number from 4 to 100.")
        expect(amount).to_have_attribute("aria-invalid", "true")
        expect(raise_button).to_be_disabled()
        amount.press("Enter")
        expect(page.locator("#action-msg")).to_have_text("Raise to must be between 4 and 100; nothing was sent.")
    page.keyboard.press("r")  # the shortcut is refused the same way
    assert actor.wire.frames("act") == []
    amount.fill("8")
    expect(raise_button).to_be_enabled()
    expect(page.locator("#amount-msg")).to_have_text("")

    turn = actor.action_bar.get_attribute("data-turn")
    page.locator("#act-call").dblclick()
    expect(actor.action_bar).not_to_have_attribute("data-turn", turn)
    assert [f["action"] for f in actor.wire.frames("act")] == [{"type": "call"}]
    expect(page.locator("#action-msg")).not_to_have_attribute("data-kind", "error")

    chat = actor.page
    chat.get_by_label("chat message", exact=True).fill("x" * 501)
    expect(chat.locator("#chat-count")).to_have_text("501/500")
    expect(chat.locator("#chat-count")).to_have_class(re.compile("over"))
    chat.get_by_label("send chat message").click()
    expect(chat.locator("#chat-status")).to_have_text(
        re.compile(r"^Your message is 501 characters long; the limit is 500")
    )
    assert actor.wire.frames("chat") == []

    for n in range(6):  # the room takes 5 messages per 10 s from one person
        chat.get_by_label("chat message", exact=True).fill(f"message {n}")
        chat.get_by_label("send chat message").click()
        expect(chat.get_by_label("send chat message")).to_be_enabled()
    expect(chat.locator("#chat-status")).to_have_text(
        re.compile(r"^Slow down: too many chat messages.*You can post again in \d+ s\.$")
    )
    watcher = other(actor, pair)
    expect(watcher.page.locator("#chat-log li")).to_have_count(5)
    expect(chat.get_by_label("chat message", exact=True)).to_have_value("message 5")  # kept for a retry


def test_acting_after_the_deadline(people, new_table):
    table = new_table(name="Short clock 1/2", turn_seconds=3)
    pair = seated_pair(people, table)
    late = whose_turn(*pair)
    late.wire.hold_events = True  # this page hears nothing more: it still shows its turn
    expect(late.page.locator(".seat.acting .clock .left")).to_have_text("time!", timeout=10_000)
    expect(other(late, pair).page.locator("#results")).to_contain_text("(everyone else folded)")  # the clock folded it
    late.page.locator("#act-call").click()
    expect(late.page.locator("#action-msg")).to_have_text(re.compile(r"^Too late: that turn is over"))
    expect(late.page.locator("#act-call")).to_be_disabled()
    expect(late.page.locator("#act-fold")).to_be_disabled()
    assert len(late.wire.frames("act")) == 1
    late.wire.release()
    expect(late.page.locator("#results")).to_contain_text("(everyone else folded)")


def test_a_sign_up_that_fails_the_form_check_names_the_fields(people) -> None:
    """The gateway's `validation` names the first wrong field; the form still says what each needs."""
    page = people("gina").page
    form = page.locator("#signup-form")
    form.get_by_label("sign-up email").fill("gina@example.org")
    form.get_by_label("sign-up password").fill("short")
    form.get_by_role("button", name="create account").click()
    expect(form.locator(".form-msg")).to_have_text(
        "Check password: an email address and a password of at least 8 characters."
    )
