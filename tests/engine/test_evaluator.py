"""Hand evaluation: one named test per ranking rule (the five-card draw rules), exhaustive five-card
counts, and agreement with treys (lower-is-better) on a million seeded 7-card hands."""

import random
from itertools import combinations

import pytest
from treys import Card, Evaluator

from felt_engine.cards import FULL_DECK, card_str, cards_str, parse_cards
from felt_engine.evaluator import (
    MAX_RANK,
    MIN_RANK,
    HandClass,
    best_five,
    describe,
    hand_class,
    is_royal,
    rank_hand,
)


def R(text: str) -> int:
    return rank_hand(parse_cards(text))


def C(text: str) -> HandClass:
    return hand_class(R(text))


# Weakest and strongest five-card hand of every class, weakest class first.
CLASS_EXTREMES = [
    (HandClass.HIGH_CARD, "7c 5d 4h 3s 2c", "Ac Kd Qh Js 9c"),
    (HandClass.PAIR, "2c 2d 5h 4s 3c", "Ac Ad Kh Qs Jc"),
    (HandClass.TWO_PAIR, "3c 3d 2h 2s 4c", "Ac Ad Kh Ks Qc"),
    (HandClass.THREE_OF_A_KIND, "2c 2d 2h 4s 3c", "Ac Ad Ah Ks Qc"),
    (HandClass.STRAIGHT, "5c 4d 3h 2s Ac", "Ac Kd Qh Js Tc"),
    (HandClass.FLUSH, "7h 5h 4h 3h 2h", "Ah Kh Qh Jh 9h"),
    (HandClass.FULL_HOUSE, "2c 2d 2h 3s 3c", "Ac Ad Ah Ks Kc"),
    (HandClass.FOUR_OF_A_KIND, "2c 2d 2h 2s 3c", "Ac Ad Ah As Kc"),
    (HandClass.STRAIGHT_FLUSH, "5s 4s 3s 2s As", "As Ks Qs Js Ts"),
]


def test_each_class_beats_the_one_below():
    for (cls_lo, _, strongest_lo), (cls_hi, weakest_hi, _) in zip(CLASS_EXTREMES, CLASS_EXTREMES[1:]):
        assert C(strongest_lo) == cls_lo and C(weakest_hi) == cls_hi
        assert R(weakest_hi) > R(strongest_lo), f"{cls_hi.name} must beat {cls_lo.name}"
    assert R(CLASS_EXTREMES[0][1]) == MIN_RANK


def test_royal_flush_is_the_top_straight_flush():
    for suit in "cdhs":
        royal = " ".join(r + suit for r in "AKQJT")
        assert R(royal) == MAX_RANK and is_royal(R(royal))
        assert C(royal) == HandClass.STRAIGHT_FLUSH
        assert describe(R(royal)) == "Royal Flush"
    king_high = R("Ks Qs Js Ts 9s")
    assert hand_class(king_high) == HandClass.STRAIGHT_FLUSH and not is_royal(king_high)
    assert king_high < MAX_RANK


def test_wheel_is_the_lowest_straight():
    wheel = R("Ah 2c 3d 4s 5h")
    assert hand_class(wheel) == HandClass.STRAIGHT
    assert wheel < R("2c 3d 4s 5h 6h") < R("Tc Jd Qs Kh Ah")
    assert wheel > R("Ac Ad Ah Ks Qc")  # still beats the best trips
    straights = [R(" ".join(f"{'A23456789TJQKA'[i + k]}{'cdhs'[k % 4]}" for k in range(5))) for i in range(10)]
    assert straights[0] == wheel and straights == sorted(set(straights))
    steel_wheel = R("As 2s 3s 4s 5s")
    assert hand_class(steel_wheel) == HandClass.STRAIGHT_FLUSH
    assert steel_wheel < R("2s 3s 4s 5s 6s")
    assert steel_wheel > R("Ac Ad Ah As Kc")


@pytest.mark.parametrize("hand", ["Qh Kc Ad 2s 3h", "Kh Ac 2d 3s 4h", "Jh Qc Kd As 2h"])
def test_wraparound_is_not_a_straight(hand):
    assert C(hand) == HandClass.HIGH_CARD
    suited = " ".join(c[0] + "s" for c in hand.split())
    assert C(suited) == HandClass.FLUSH  # and not a straight flush
    # In 7 cards too: Q-K-A-2-3 plus junk is still no straight.
    assert C(hand + " 8c 9d") == HandClass.HIGH_CARD


def test_suits_never_break_ties():
    for _, weakest, strongest in CLASS_EXTREMES:
        for text in (weakest, strongest):
            cards = parse_cards(text)
            ranks = [c >> 2 for c in cards]
            suits = [c & 3 for c in cards]
            for shift in range(1, 4):  # rotate every suit: same hand, other suits
                assert rank_hand([r * 4 + (s + shift) % 4 for r, s in zip(ranks, suits)]) == R(text)
    assert R("Ah Kh Qh Jh 9h") == R("As Ks Qs Js 9s")
    assert R("As Ad Kc Kh 2s") == R("Ac Ah Ks Kd 2c")


def test_equal_hands_tie():
    board = "As Ks Qs Js Ts"  # the board plays for everyone
    assert R(board + " 2c 3d") == R(board + " 9h 8h") == R(board + " Ac Kc")
    board = "Kh Kd 5s 5c 9h"  # two pair, nine kicker: lower hole cards don't play
    assert R(board + " 2d 3c") == R(board + " 4d 2s") == R(board + " 8s 7s")
    assert R(board + " Tc 2s") > R(board + " 8s 2d")  # a better kicker plays


def test_kickers_and_rank_order_within_a_class():
    assert R("Ac Ad Kh Qs Jc") > R("Ac Ad Kh Qs Tc")
    assert R("Kc Kd Qh Qs 2c") > R("Kc Kd 2h 2s Ac") > R("Qc Qd Jh Js Ac")  # second pair before kicker
    assert R("3c 3d 3h 2s 2c") > R("2c 2d 2h As Ac")  # full house: trips decide
    assert R("Ah Th 8h 6h 4h") > R("Ah Th 8h 6h 3h")


def test_six_and_seven_cards_use_the_best_five():
    assert C("9s 8s 7s 6s 5s 4s") == HandClass.STRAIGHT_FLUSH
    assert R("9s 8s 7s 6s 5s 4s As") == R("9d 8d 7d 6d 5d")
    assert R("As Ad Ac Ks Kd Kc 2h") == R("As Ad Ac Ks Kd")  # two trips: best full house
    assert R("7s 7d 7c 7h 2s 2d 2c") == R("7s 7d 7c 7h 2s")
    assert R("Ah Kh 9h 7h 4h 2h 3h") == R("Ah Kh 9h 7h 4h")  # seven suited: top five
    assert C("Ah 2h 3h 4h 9h 5c Kd") == HandClass.FLUSH  # flush beats the wheel
    assert C("Kc Kd Kh 2s 2c 2d 9h") == HandClass.FULL_HOUSE


@pytest.mark.parametrize("bad", ["As Ks Qs Js", "As Ks Qs Js Ts 9s 8s 7s", "As As Qs Js Ts"])
def test_rank_hand_rejects_wrong_count_or_duplicates(bad):
    with pytest.raises(ValueError):
        R(bad)


@pytest.mark.parametrize("bad", [[0, 1, 2, 3, 52], [0, 1, 2, 3, -1]])
def test_rank_hand_rejects_non_cards(bad):
    with pytest.raises((ValueError, KeyError)):
        rank_hand(bad)


def test_hand_class_rejects_non_ranks():
    for bad in (0, MAX_RANK + 1, -1):
        with pytest.raises(ValueError):
            hand_class(bad)


@pytest.mark.parametrize(
    "hand, text",
    [
        ("As Ks Qs Js Ts", "Royal Flush"),
        ("9d 8d 7d 6d 5d", "Straight Flush, Nine High"),
        ("5d 4d 3d 2d Ad", "Straight Flush, Five High"),
        ("Qc Qd Qh Qs 3c", "Four of a Kind, Queens"),
        ("Kc Kd Kh 5s 5c", "Full House, Kings over Fives"),
        ("Ah Th 8h 6h 4h", "Flush, Ace High"),
        ("Tc 9d 8h 7s 6c", "Straight, Ten High"),
        ("7c 7d 7h Ks 2c", "Three of a Kind, Sevens"),
        ("Kh Kd 5s 5c 9h", "Two Pair, Kings and Fives"),
        ("Jc Jd 6h 5s 2c", "Pair of Jacks"),
        ("Ac Qd 6h 5s 2c", "High Card, Ace"),
        ("6c 6d 6h 2s 2c", "Full House, Sixes over Twos"),
    ],
)
def test_describe(hand, text):
    assert describe(R(hand)) == text


def test_hand_class_titles():
    assert HandClass.FOUR_OF_A_KIND.title == "Four of a Kind"
    assert HandClass.TWO_PAIR.title == "Two Pair"
    assert [c.name for c in HandClass][0] == "HIGH_CARD"
    assert max(HandClass) == HandClass.STRAIGHT_FLUSH


@pytest.mark.parametrize(
    "hand, five",
    [
        ("Kh Kd 5s 5c 9h 2d 3c", "Kh Kd 5s 5c 9h"),
        ("5h 3c Ac 4d 2s Kc Kd", "5h 4d 3c 2s Ac"),  # wheel shown 5-4-3-2-A
        ("9s 8s 7s 6s 5s 4s As", "9s 8s 7s 6s 5s"),
        ("Ah 2h 3h 4h 9h Kh Qh", "Ah Kh Qh 9h 4h"),
        ("5c 5d Kh Ks 5h 2c 2d", "5h 5d 5c Ks Kh"),
        ("2c 7d 9h Js Kc", "Kc Js 9h 7d 2c"),
    ],
)
def test_best_five_picks_and_orders_the_playing_cards(hand, five):
    cards = parse_cards(hand)
    got = best_five(cards)
    assert cards_str(got) == five
    assert set(got) <= set(cards) and rank_hand(got) == rank_hand(cards)


def test_best_five_matches_rank_hand_on_random_hands():
    rng = random.Random(5)
    for _ in range(3000):
        hand = rng.sample(FULL_DECK, rng.choice((5, 6, 7)))
        five = best_five(hand)
        assert len(set(five)) == 5 and set(five) <= set(hand)
        assert rank_hand(five) == rank_hand(hand)


EXPECTED_FIVE_CARD_COUNTS = {
    HandClass.STRAIGHT_FLUSH: 40,
    HandClass.FOUR_OF_A_KIND: 624,
    HandClass.FULL_HOUSE: 3744,
    HandClass.FLUSH: 5108,
    HandClass.STRAIGHT: 10200,
    HandClass.THREE_OF_A_KIND: 54912,
    HandClass.TWO_PAIR: 123552,
    HandClass.PAIR: 1098240,
    HandClass.HIGH_CARD: 1302540,
}
EXPECTED_DISTINCT_PER_CLASS = {
    HandClass.STRAIGHT_FLUSH: 10,
    HandClass.FOUR_OF_A_KIND: 156,
    HandClass.FULL_HOUSE: 156,
    HandClass.FLUSH: 1277,
    HandClass.STRAIGHT: 10,
    HandClass.THREE_OF_A_KIND: 858,
    HandClass.TWO_PAIR: 858,
    HandClass.PAIR: 2860,
    HandClass.HIGH_CARD: 1277,
}


@pytest.fixture(scope="module")
def five_card_histogram():
    """How many of the 2,598,960 five-card hands get each rank value."""
    hist = [0] * (MAX_RANK + 1)
    for hand in combinations(FULL_DECK, 5):
        hist[rank_hand(hand)] += 1
    return hist


@pytest.mark.slow
def test_exhaustive_five_card_class_counts(five_card_histogram):
    hist = five_card_histogram
    assert sum(hist) == 2_598_960
    per_class = {cls: 0 for cls in HandClass}
    for rank, n in enumerate(hist):
        if n:
            per_class[hand_class(rank)] += n
    assert per_class == EXPECTED_FIVE_CARD_COUNTS
    assert hist[MAX_RANK] == 4  # four royal flushes among the 40 straight flushes


@pytest.mark.slow
def test_exhaustive_five_card_hands_have_exactly_7462_distinct_ranks(five_card_histogram):
    used = [rank for rank, n in enumerate(five_card_histogram) if n]
    assert len(used) == 7462
    assert used == list(range(MIN_RANK, MAX_RANK + 1))
    distinct = {cls: 0 for cls in HandClass}
    for rank in used:
        distinct[hand_class(rank)] += 1
    assert distinct == EXPECTED_DISTINCT_PER_CLASS
    # Classes occupy contiguous bands in class order (each class beats the one below).
    assert [hand_class(r) for r in used] == sorted(hand_class(r) for r in used)


def _assert_same_ordering(pairs: set[tuple[int, int]]) -> None:
    """``pairs`` = {(ours, treys)}. Same ordering for every pair of hands iff our equality
    classes and treys' coincide and, sorted by our rank, treys' rank strictly decreases
    (treys: lower is better)."""
    ours = {o for o, _ in pairs}
    theirs = {t for _, t in pairs}
    assert len(ours) == len(pairs) == len(theirs), "equality classes differ from treys"
    ordered = sorted(pairs)
    bad = [(a, b) for a, b in zip(ordered, ordered[1:]) if not b[1] < a[1]]
    assert not bad, f"ordering differs from treys, e.g. {bad[:3]}"


_TREYS = [Card.new(card_str(c)) for c in FULL_DECK]


@pytest.mark.slow
def test_agrees_with_treys_on_one_million_random_seven_card_hands():
    rng = random.Random(20240601)
    evaluate = Evaluator().evaluate
    t = _TREYS
    sample = rng.sample
    deck = list(FULL_DECK)
    pairs: set[tuple[int, int]] = set()
    add = pairs.add
    for _ in range(1_000_000):
        h = sample(deck, 7)
        add((rank_hand(h), evaluate([t[h[0]], t[h[1]]], [t[h[2]], t[h[3]], t[h[4]], t[h[5]], t[h[6]]])))
    assert len(pairs) > 4000  # the sample spans most of the rank space
    _assert_same_ordering(pairs)


@pytest.mark.slow
def test_agrees_with_treys_on_a_sample_of_five_and_six_card_hands():
    rng = random.Random(7)
    evaluate = Evaluator().evaluate
    pairs = set()
    for _ in range(100_000):
        h = rng.sample(FULL_DECK, rng.choice((5, 6)))
        pairs.add((rank_hand(h), evaluate([_TREYS[c] for c in h[:2]], [_TREYS[c] for c in h[2:]])))
    _assert_same_ordering(pairs)
