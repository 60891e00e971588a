"""Cards and deck: encoding, parsing, secure shuffling, reproducibility, dealing."""

import random

import pytest

from felt_engine import cards
from felt_engine.cards import (
    FULL_DECK,
    Deck,
    card_str,
    cards_str,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


def test_card_encoding_rank_then_suit():
    assert parse_card("2c") == 0
    assert parse_card("2d") == 1
    assert parse_card("2h") == 2
    assert parse_card("2s") == 3
    assert parse_card("As") == 51
    assert rank_of(parse_card("Th")) == 8 and suit_of(parse_card("Th")) == 2
    assert make_card(12, 3) == 51


def test_card_str_roundtrip_all_52():
    assert [parse_card(card_str(c)) for c in FULL_DECK] == list(FULL_DECK)
    assert len({card_str(c) for c in FULL_DECK}) == 52


def test_parse_card_accepts_case_and_ten():
    assert parse_card("as") == parse_card("As") == parse_card("AS")
    assert parse_card("10h") == parse_card("Th")


@pytest.mark.parametrize("bad", ["", "A", "Ax", "1s", "As ", "AsKd", "11h", None, 5])
def test_parse_card_rejects_garbage(bad):
    if bad == "As ":  # surrounding whitespace is tolerated
        assert parse_card(bad) == 51
        return
    with pytest.raises(ValueError):
        parse_card(bad)


def test_parse_cards_forms():
    want = (51, 45)
    assert parse_cards("As Kd") == want
    assert parse_cards("AsKd") == want
    assert parse_cards("As, Kd") == want
    assert parse_cards(["As", "Kd"]) == want
    assert parse_cards([51, "Kd"]) == want
    assert parse_cards("") == ()
    assert cards_str(want) == "As Kd"


@pytest.mark.parametrize("bad", ["As Kx", "As K", [52], [-1], [True]])
def test_parse_cards_rejects_invalid(bad):
    with pytest.raises(ValueError):
        parse_cards(bad)


def test_full_deck_is_52_distinct_cards():
    assert FULL_DECK == tuple(range(52))


def test_shuffled_default_uses_system_random(monkeypatch):
    assert isinstance(cards._SYSTEM_RNG, random.SystemRandom)
    calls = []

    class Spy(random.SystemRandom):
        def shuffle(self, x):
            calls.append(len(x))
            super().shuffle(x)

    monkeypatch.setattr(cards, "_SYSTEM_RNG", Spy())
    deck = Deck.shuffled()
    assert calls == [52]
    assert sorted(deck.order) == list(FULL_DECK)


def test_shuffled_default_decks_differ():
    # 52! orders: two secure shuffles (or eight in a row) coinciding means a broken source.
    orders = {Deck.shuffled().order for _ in range(8)}
    assert len(orders) == 8
    assert all(sorted(o) == list(FULL_DECK) for o in orders)


def test_shuffled_uses_injected_rng():
    assert Deck.shuffled(random.Random(7)).order == Deck.shuffled(random.Random(7)).order
    rng = random.Random(7)
    expected = list(FULL_DECK)
    rng.shuffle(expected)
    assert Deck.shuffled(random.Random(7)).order == tuple(expected)


def test_from_seed_reproducible_and_distinct():
    assert Deck.from_seed(42).order == Deck.from_seed(42).order
    assert Deck.from_seed(42).order != Deck.from_seed(43).order
    assert sorted(Deck.from_seed(42).order) == list(FULL_DECK)


def test_from_order_full_and_prefix():
    full = Deck.from_order(list(reversed(FULL_DECK)))
    assert full.remaining == 52 and full.order[0] == 51
    prefix = Deck.from_order("As Kd 2c")
    assert prefix.order == (51, 45, 0) and prefix.remaining == 3


@pytest.mark.parametrize("bad", ["As As", [0, 1, 1], [52], [-1], list(range(52)) + [0]])
def test_from_order_rejects_duplicates_and_invalid(bad):
    with pytest.raises(ValueError):
        Deck.from_order(bad)


def test_deal_returns_cards_and_rest_without_mutating():
    deck = Deck.from_order("As Kd 2c 3h 4s")
    hole, rest = deck.deal(2)
    assert hole == parse_cards("As Kd")
    assert deck.remaining == 5 and deck.pos == 0  # original untouched
    assert rest.pos == 2 and rest.remaining == 3
    assert rest.stub == parse_cards("2c 3h 4s")
    burnt = rest.burn()
    assert burnt.stub == parse_cards("3h 4s")
    flop, last = burnt.deal(2)
    assert flop == parse_cards("3h 4s") and last.remaining == 0 and last.stub == ()


def test_deal_past_stub_raises():
    deck = Deck.from_order("As Kd")
    with pytest.raises(ValueError):
        deck.deal(3)
    with pytest.raises(ValueError):
        deck.deal(-1)


def test_stub_size_after_five_card_draw_deal():
    deck = Deck.from_seed(1)
    for _ in range(6):  # six players, five cards each
        _, deck = deck.deal(5)
    assert deck.remaining == len(deck.stub) == 22
    replacements, deck = deck.deal(3)  # a player draws three
    assert len(replacements) == 3 and deck.remaining == 19


def test_deck_is_value_and_repr_hides_order():
    deck = Deck.from_seed(3)
    assert deck == Deck(deck.order, 0) and hash(deck) == hash(Deck(deck.order, 0))
    assert card_str(deck.order[0]) not in repr(deck)
    with pytest.raises(AttributeError):
        deck.pos = 5  # type: ignore[misc]  # frozen: the point of the test
    with pytest.raises(ValueError):
        Deck(deck.order, 53)
