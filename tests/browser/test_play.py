"""People playing in the page: two sign up and play hold'em (slider, a pre-action, a
showdown, a fold-win, chat, a dropped connection that comes back into the same hand); a third
plays five-card draw including the draw. Everything is asserted as the person sees it."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from tests.browser.conftest import PHONE, shot
from tests.browser.people import Person

OTHER_CARDS = ".seat:not(.mine) .card.face"


def whose_turn(*people: Person, timeout: float = 30) -> Person:
    """The one whose page shows the action buttons (waiting in the page keeps the wire moving)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in people:
            if p.my_turn():
                return p
        people[0].page.wait_for_timeout(100)
    raise AssertionError("no one was given a turn")


def act(person: Person, button: str) -> None:
    """Click one action button and see that turn end."""
    turn = person.action_bar.get_attribute("data-turn")
    person.page.locator(button).click()
    expect(person.action_bar).not_to_have_attribute("data-turn", turn)


def other(person: Person, pair: tuple[Person, Person]) -> Person:
    return pair[1] if person is pair[0] else pair[0]


def two_ready_at_an_explicit_table(people, new_table) -> tuple[str, tuple[Person, Person]]:
    """nia and oto sit down at a new explicit-start table and both ask for the deal."""
    table = new_table(name="Explicit 1/2", start_mode="explicit")
    pair = (people("nia"), people("oto"))
    for p in pair:
        p.sign_up()
        p.open_table(table)
        p.sit_down()
    for p in pair:
        p.page.get_by_role("button", name="ready: deal the next hand").click()
    return table, pair


def test_two_people_play_hold_em(people, new_table):
    table = new_table(name="Hold'em 1/2")
    alice, bob = people("alice"), people("bob", PHONE)
    pair = (alice, bob)
    for p in pair:
        p.sign_up()
        p.open_table(table)
    alice.sit_down(buy_in=60)
    expect(bob.page.locator("#seat-controls")).to_contain_text("You are watching.")
    expect(bob.page.locator(".seat:not(.empty) .name")).to_have_text([alice.screen_name])
    bob.sit_down()  # no buy-in typed: the most the balance allows, within the table's range
    expect(bob.page.locator(".seat.mine .stack")).to_have_text("100")
    expect(alice.page.locator(".seat.mine .stack")).to_have_text("60")
    expect(alice.page.locator("#bal-available")).to_have_text("140")

    # --- hand 1: the slider, a pre-action, a showdown -------------------------------------
    first = whose_turn(*pair)
    second = other(first, pair)
    expect(second.page.locator("#preactions")).to_be_visible()
    second.page.get_by_label("pre-action: Call any").check()
    expect(second.page.get_by_label("pre-action: Call any")).to_be_checked()
    assert [f["preaction"] for f in second.wire.frames("preaction")] == ["call_any"]

    page = first.page
    legal = page.locator("#action-buttons")
    expect(legal.locator("button")).to_have_count(4)  # fold, call 1, raise to, all-in: exactly what is legal
    expect(page.locator("#act-call")).to_contain_text("Call 1")
    expect(page.locator("#act-fold")).to_be_enabled()
    expect(page.locator("#act-raise")).to_contain_text("Raise to 4")
    slider = page.get_by_label("bet size slider")
    slider.focus()
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    expect(page.get_by_label("bet amount")).to_have_value("6")
    expect(page.locator("#act-raise")).to_contain_text("Raise to 6")
    page.get_by_label("size: Pot").click()
    expect(page.get_by_label("bet amount")).to_have_value("6")  # pot-sized: 2 + (3 + 1)
    expect(alice.page.locator(".pot.total")).to_have_text("Total 3")
    for p in pair:
        assert p.unnamed_controls() == []
        shot(p, "hand")
    act(first, "#act-raise")

    expect(second.page.locator(".centre .street")).to_contain_text("Flop")  # the pre-action called for them
    assert second.wire.frames("act") == []
    expect(first.page.locator(".board .card.face")).to_have_count(3)
    expect(first.page.locator(".pot").first).to_have_text(re.compile(r"Main pot: 12"))
    call_any = second.page.get_by_label("pre-action: Call any")
    expect(call_any).to_be_checked()  # it stands for the rest of the hand: it checks for them too

    for street in ("flop", "turn", "river"):
        assert whose_turn(*pair) is first, street
        if street == "flop":
            turn = first.action_bar.get_attribute("data-turn")
            first.page.keyboard.press("c")  # check by keyboard
            expect(first.action_bar).not_to_have_attribute("data-turn", turn)
        else:
            act(first, "#act-check")
    assert second.wire.frames("act") == []  # the pre-action played their whole hand

    for p in pair:
        expect(p.page.locator(OTHER_CARDS)).to_have_count(2)  # revealed at showdown
        expect(p.page.locator(".centre .street")).to_contain_text("Showdown")
        expect(p.page.locator("#results")).to_contain_text(re.compile(r"(wins|splits) the pot: \d+ with \w+"))
        shot(p, "showdown")

    alice.page.get_by_label(re.compile(r"as PHH$")).first.click()
    expect(alice.page.locator("#history-text")).to_contain_text("variant")
    alice.page.get_by_label("close the hand history").click()

    # --- chat -----------------------------------------------------------------------------
    alice.page.get_by_label("chat message", exact=True).fill("good luck <b>all</b>")
    alice.page.get_by_label("send chat message").click()
    expect(bob.page.locator("#chat-log")).to_contain_text("good luck <b>all</b>")  # text, never markup
    expect(bob.page.locator("#chat-log b")).to_have_count(0)

    # --- hand 2: a fold-win --------------------------------------------------------------
    first = whose_turn(*pair)
    winner = other(first, pair)
    turn = first.action_bar.get_attribute("data-turn")
    first.page.keyboard.press("f")  # fold by keyboard
    expect(first.action_bar).not_to_have_attribute("data-turn", turn)
    expect(winner.page.locator("#results")).to_contain_text("(everyone else folded)")
    expect(first.page.locator(OTHER_CARDS)).to_have_count(0)  # nothing revealed
    winner.page.get_by_role("button", name="show your cards").click()  # a voluntary reveal
    shown = first.page.locator("#results li").first
    expect(shown).to_contain_text(f"{winner.screen_name} shows")
    expect(shown.locator(".card.face")).to_have_count(2)

    # --- sit out and back in ------------------------------------------------------------
    bob.page.get_by_role("button", name="sit out").click()
    bob_seat = alice.page.locator(".seat:not(.mine)")
    expect(bob_seat.locator(".badge.away")).to_have_text("sitting out")
    bob.page.get_by_role("button", name="sit back in").click()
    expect(bob_seat.locator(".badge.away")).to_have_count(0)
    expect(bob.page.get_by_role("button", name="sit out")).to_be_visible()

    # --- hand 3: a dropped connection comes back into the same hand ----------------------
    actor = whose_turn(*pair)
    dropped = other(actor, pair)
    expect(dropped.page.locator(".seat.mine .card.face")).to_have_count(2)  # dealt (rendered a moment after the turn)
    cards = dropped.my_cards()
    dropped.wire.refuse = True
    dropped.wire.drop()
    expect(dropped.page.locator("#banner")).to_contain_text("reconnecting")
    act(actor, "#act-call" if actor.page.locator("#act-call").count() else "#act-check")
    dropped.page.wait_for_timeout(1500)
    dropped.wire.refuse = False
    expect(dropped.page.locator("#banner")).to_be_hidden()
    assert dropped.wire.frames("subscribe")[-1]["lastSeq"] > 0  # resumed, not started over
    expect(dropped.page.locator(".seat.mine .card.face")).to_have_count(2)
    assert dropped.my_cards() == cards  # the same hand
    assert whose_turn(*pair) is dropped
    act(dropped, "#act-check")


def test_five_card_draw_with_the_draw(people, new_table):
    table = new_table(
        name="Draw, ante 2",
        rules_version="draw5-1",
        small_blind=0,
        big_blind=0,
        ante=2,
        min_buy_in=20,
        max_buy_in=100,
        auto_rebuy=True,
    )
    carol, dave = people("carol"), people("dave", PHONE)
    pair = (carol, dave)
    for p in pair:
        p.sign_up()
        p.open_table(table)
        p.sit_down()
    rebuy = carol.page.get_by_label("auto-rebuy")
    expect(rebuy).not_to_be_checked()
    rebuy.check()
    expect(carol.page.locator("#toast")).to_have_text("Auto-rebuy is on.")
    assert carol.wire.frames("autoRebuy")[-1]["enabled"] is True
    drawn = set()
    while not carol.page.locator("#results li").count():
        p = whose_turn(*pair)
        if p.page.locator("#act-draw").count():
            before = p.my_cards()
            assert len(before) == 5
            draw = p.page.locator("#act-draw")
            expect(draw).to_have_text("Stand pat")
            if p is carol:
                for card in before[:2]:
                    p.page.get_by_label(re.compile(f"^discard {card_label(card)}$")).click()
                expect(draw).to_have_text("Discard 2 & draw")
                act(p, "#act-draw")
                after = p.my_cards()
                assert len(after) == 5 and set(before[2:]) <= set(after) and not set(before[:2]) & set(after)
            else:
                act(p, "#act-draw")
                assert p.my_cards() == before  # stood pat
            drawn.add(p.name)
        else:
            act(p, "#act-check" if p.page.locator("#act-check").count() else "#act-call")
    assert drawn == {"carol", "dave"}
    assert [f["action"]["cards"] for f in carol.wire.frames("act") if f["action"]["type"] == "draw"] == [
        drawn_cards(carol)
    ]
    expect(dave.page.locator("#results")).to_contain_text(re.compile(r"(wins|splits) the pot: \d+"))


def card_label(card: str) -> str:
    names = {"T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
    suits = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
    return f"{names.get(card[0], card[0])} of {suits[card[1]]}"


def drawn_cards(person: Person) -> list[str]:
    return next(f["action"]["cards"] for f in person.wire.frames("act") if f["action"]["type"] == "draw")


def test_ante_table_hit_and_add_now_bet(people, new_table):
    table = new_table(
        name="Ante 10", rules_version="ante-nl-1", small_blind=0, big_blind=0, ante=10, min_buy_in=None, max_buy_in=None
    )
    pair = (people("gina"), people("hal", PHONE))
    for p in pair:
        p.sign_up()
        p.open_table(table)
        p.sit_down()
    bettor = whose_turn(*pair)
    expect(bettor.page.locator("#act-check")).to_have_text(re.compile(r"^Hit \(check\)"))
    expect(bettor.page.locator("#sizing-label")).to_have_text("Bet +")
    bettor.page.get_by_label("size: ½ pot").click()  # half the 20 in antes
    expect(bettor.page.get_by_label("bet amount")).to_have_value("10")
    expect(bettor.page.locator("#act-raise")).to_contain_text("Bet + 10")
    act(bettor, "#act-raise")
    assert bettor.wire.frames("act")[-1]["action"] == {"type": "bet", "amount": 10}  # chips to add now
    caller = other(bettor, pair)
    assert whose_turn(*pair) is caller
    expect(caller.page.locator("#act-call")).to_have_text(re.compile(r"^Hit \(call 10\)"))
    act(caller, "#act-call")
    assert caller.wire.frames("act")[-1]["action"] == {"type": "hit"}
    while not caller.page.locator("#results li").count():
        p = whose_turn(*pair)
        act(p, "#act-check" if p.page.locator("#act-check").count() else "#act-call")
    assert {f["action"]["type"] for p in pair for f in p.wire.frames("act")} <= {"bet", "hit"}


def test_an_all_in_shows_the_main_pot_and_a_side_pot(people, new_table):
    table = new_table(name="Side pots 1/2")
    short, *deep = trio = (people("ivy"), people("jack", PHONE), people("kim"))
    # the deep stacks sit first (their hands only check and call); ivy's first hand has all
    # three dealt, and she goes all-in with her whole 20 in it
    for p, buy_in in zip((*deep, short), (100, 100, 20)):
        p.sign_up()
        p.open_table(table)
        p.sit_down(buy_in)
    went_all_in = False
    while True:  # the others call her, up to the flop's first turn (read on the page that has the turn:
        p = whose_turn(*trio)  # reading her page after a call raced the update and could act once too often)
        if went_all_in and p is not short and p.street() == "FLOP":
            break
        went_all_in |= p is short
        act(p, "#act-allin" if p is short else "#act-call" if p.page.locator("#act-call").count() else "#act-check")
    act(p, "#act-raise")  # the minimum bet, 2
    act(whose_turn(*deep), "#act-call")
    for p in trio:
        expect(p.page.locator(".pot")).to_have_text(["Main pot: 60", "Side pot: 4", "Total 64"])
    expect(short.page.locator(".seat:not(.mine) .badge.allin")).to_have_count(0)
    expect(short.page.locator(".seat.mine .badge.allin")).to_have_text("ALL-IN")


def test_explicit_start_pot_limit_bounds_and_the_time_bank(people, new_table):
    table = new_table(
        name="Pot-limit 1/2",
        rules_version="plhe-1",
        start_mode="explicit",
        turn_seconds=2,
        time_bank={"initial_seconds": 6, "max_seconds": 6, "refill_seconds": 1},
    )
    pair = (people("lee"), people("max"))
    for p in pair:
        p.sign_up()
        p.open_table(table)
        p.sit_down()
    said = (  # the first to press waits (the table refuses the start but keeps the seat ready: no error shown)
        "Ready: the hand is dealt as soon as another player is ready.",
        "The hand is dealt.",  # the second deals it
    )
    for p, notice in zip(pair, said, strict=True):  # nothing is dealt until both are ready
        expect(p.page.locator(".centre .street")).to_have_text("Waiting for the next hand")
        p.page.get_by_role("button", name="ready: deal the next hand").click()
        expect(p.page.locator("#toast")).to_have_text(notice)
        expect(p.page.locator("#toast")).to_have_attribute("data-kind", "ok")
    actor = whose_turn(*pair)
    amount = actor.page.get_by_label("bet amount")
    expect(amount).to_have_attribute("max", "6")  # pot limit: call 1, then the pot of 4 on top of the 2
    actor.page.get_by_label("size: Pot").click()
    expect(amount).to_have_value("6")
    clock = actor.page.locator(".seat.acting .clock")
    expect(clock).to_contain_text("s bank")
    expect(clock).to_have_class(re.compile(r"\bbank\b"), timeout=10_000)  # the turn clock ran out: the bank runs
    expect(clock).to_contain_text("time bank")
    act(actor, "#act-raise")
    assert actor.wire.frames("act")[-1]["action"] == {"type": "raiseTo", "amount": 6}


def test_a_person_who_sits_down_during_a_hand_asks_to_be_dealt_in_next(people, new_table):
    """At an explicit table "Deal" shows between hands; a seat that sits down while a hand runs
    gets "Deal me in", and one click deals it in from the next hand (it used to be refused)."""
    table, pair = two_ready_at_an_explicit_table(people, new_table)
    whose_turn(*pair)  # a hand runs
    late = people("pia", PHONE)
    late.sign_up()
    late.open_table(table)
    late.sit_down()
    deal = late.page.get_by_role("button", name="ready: deal the next hand")
    expect(deal).to_have_text("Deal me in")
    deal.click()
    expect(deal).to_have_count(0)  # ready: nothing more to ask while the hand runs
    act(whose_turn(*pair), "#act-fold")  # the hand ends; the next starts from a ready seat
    pair[0].page.get_by_role("button", name="ready: deal the next hand").click()
    while (p := whose_turn(*pair, late)) is not late:
        act(p, "#act-check" if p.page.locator("#act-check").count() else "#act-call")
    assert late.my_turn()


def test_a_buy_in_being_typed_survives_the_table_moving(people, new_table):
    """The seat's controls are redrawn only when what they offer changes: a redraw on every event
    erased a buy-in being typed (the person then sat with the most they could afford) and, on a
    slow machine, lost a click that fell between two redraws."""
    table = new_table(name="Typing 1/2", start_mode="explicit")
    typing, other = people("nia"), people("oto")
    for p in (typing, other):
        p.sign_up()
        p.open_table(table)
    typing.page.locator("#buy-in").fill("20")
    other.sit_down(60)
    expect(typing.page.locator(".seat", has_text=other.screen_name)).to_be_visible()  # the table moved
    expect(typing.page.locator("#buy-in")).to_have_value("20")
    typing.sit_down()
    expect(typing.page.locator(".seat.mine .stack")).to_have_text("20")


def test_who_sits_down_after_a_hand_is_not_shown_the_last_players_cards(people, new_table):
    """Between hands the last hand stays on the felt, seat by seat, a player who left still named
    on theirs; someone who takes that seat is shown with their own stack only, not that player's
    cards, blind or win."""
    table, pair = two_ready_at_an_explicit_table(people, new_table)
    folder = whose_turn(*pair)
    winner = other(folder, pair)
    act(folder, "#act-fold")
    seat = winner.page.locator(".seat.mine")
    expect(seat.locator(".payout")).to_contain_text("wins")
    number = seat.get_attribute("data-seat")
    winner.page.get_by_label("leave the table").click()
    expect(winner.page.locator(".seat.mine")).to_have_count(0)
    left = folder.page.locator(f'.seat[data-seat="{number}"]')
    expect(left.locator(".payout")).to_contain_text("wins")  # the hand stays on the felt ...
    expect(left.locator(".name")).to_have_text(winner.screen_name)  # ... under the name of who played it
    late = people("pia")
    late.sign_up()
    late.open_table(table)
    late.sit_down(40)
    mine = late.page.locator(".seat.mine")
    expect(mine).to_have_attribute("data-seat", number)  # the seat the winner left
    expect(mine.locator(".stack")).to_have_text("40")
    expect(mine.locator(".card")).to_have_count(0)
    expect(mine.locator(".badge.blind")).to_have_count(0)
    expect(mine.locator(".payout")).to_have_count(0)
    stayed = folder.page.locator(".seat.mine").get_attribute("data-seat")
    expect(late.page.locator(f'.seat[data-seat="{stayed}"] .badge.blind')).to_have_count(1)  # who played it keeps it
