"""Cards and the deck.

A card is a plain ``int`` 0..51 so that hand evaluation can index lookup tables
directly: ``rank = c // 4`` (0 = deuce .. 12 = ace), ``suit = c % 4`` (c, d, h, s).
Strings such as ``"As"`` exist only at the edges (parsing, display, logs).

The deck is an immutable value (card order + position of the next card), so a hand
state can hold it, copy it and replay it; dealing returns a new deck. The undealt
remainder (the *stub*) is always known, which five-card draw needs for replacements.
The engine never invents randomness: ``Deck.shuffled()`` uses the operating system's
CSPRNG unless the caller injects a generator (tests, replays).
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "cdhs"
RANK_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King", "Ace")
RANK_PLURALS = (
    "Twos",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Sevens",
    "Eights",
    "Nines",
    "Tens",
    "Jacks",
    "Queens",
    "Kings",
    "Aces",
)

FULL_DECK: tuple[int, ...] = tuple(range(52))

_CARD_RE = re.compile(r"(10|[2-9tjqka])([cdhs])", re.IGNORECASE)
_SEP_RE = re.compile(r"[\s,]*")

# The default shuffle source: the OS CSPRNG. Module-level so tests can check it.
_SYSTEM_RNG = secrets.SystemRandom()


def make_card(rank: int, suit: int) -> int:
    """Card int from rank 0..12 (deuce..ace) and suit 0..3 (c, d, h, s)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise ValueError(f"invalid rank/suit: {rank!r}/{suit!r}")
    return rank * 4 + suit


def rank_of(c: int) -> int:
    return c >> 2


def suit_of(c: int) -> int:
    return c & 3


def _check_card(c: object) -> int:
    if type(c) is not int or not 0 <= c < 52:  # bool is not a card
        raise ValueError(f"not a card: {c!r}")
    return c


def parse_card(s: str) -> int:
    """``"As"`` -> 51. Rank is case-insensitive (``"10"`` is accepted for ten)."""
    if not isinstance(s, str):
        raise ValueError(f"not a card string: {s!r}")
    m = _CARD_RE.fullmatch(s.strip())
    if not m:
        raise ValueError(f"not a card: {s!r}")
    r, su = m.group(1).upper(), m.group(2).lower()
    return RANKS.index("T" if r == "10" else r) * 4 + SUITS.index(su)


def card_str(c: int) -> str:
    """51 -> ``"As"``."""
    _check_card(c)
    return RANKS[c >> 2] + SUITS[c & 3]


def parse_cards(cards: str | Iterable[object]) -> tuple[int, ...]:
    """``"As Kd"``, ``"AsKd"``, ``"As,Kd"`` or ``["As", "Kd"]`` (ints pass through)."""
    if isinstance(cards, str):
        out: list[int] = []
        pos, text = 0, cards.strip()
        while pos < len(text):
            sep = _SEP_RE.match(text, pos)
            assert sep is not None  # the separator pattern also matches the empty string
            pos = sep.end()
            if pos >= len(text):
                break
            m = _CARD_RE.match(text, pos)
            if not m:
                raise ValueError(f"cannot parse cards {cards!r} at position {pos}")
            out.append(parse_card(m.group(0)))
            pos = m.end()
        return tuple(out)
    return tuple(parse_card(c) if isinstance(c, str) else _check_card(c) for c in cards)


def cards_str(cards: Iterable[int]) -> str:
    """Space-separated display form: ``"As Kd"``."""
    return " ".join(card_str(c) for c in cards)


@dataclass(frozen=True, slots=True)
class Deck:
    """An ordered deck and a cursor; ``order[pos:]`` is the stub (undealt cards).

    Immutable: ``deal`` returns the dealt cards and a new Deck. ``repr`` hides the
    order because deck order is never public.
    """

    order: tuple[int, ...]
    pos: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.order, tuple):
            object.__setattr__(self, "order", tuple(self.order))
        if len(self.order) > 52:
            raise ValueError("a deck has at most 52 cards")
        for c in self.order:
            _check_card(c)
        if len(set(self.order)) != len(self.order):
            raise ValueError("duplicate card in deck")
        if type(self.pos) is not int or not 0 <= self.pos <= len(self.order):
            raise ValueError(f"deck position out of range: {self.pos!r}")

    def __repr__(self) -> str:
        return f"Deck(<{len(self.order)} cards hidden>, pos={self.pos})"

    @classmethod
    def shuffled(cls, rng: random.Random | None = None) -> Deck:
        """A fresh shuffled 52-card deck; default source is ``secrets.SystemRandom``."""
        order = list(FULL_DECK)
        (_SYSTEM_RNG if rng is None else rng).shuffle(order)
        return cls._trusted(tuple(order), 0)

    @classmethod
    def _trusted(cls, order: tuple[int, ...], pos: int) -> Deck:
        """A deck from an order already known valid (skips ``__post_init__``)."""
        deck = object.__new__(cls)
        object.__setattr__(deck, "order", order)
        object.__setattr__(deck, "pos", pos)
        return deck

    @classmethod
    def from_order(cls, cards: str | Iterable[object]) -> Deck:
        """A deck in the given order (all 52 cards, or a prefix of distinct cards)."""
        return cls(parse_cards(cards))

    @classmethod
    def from_seed(cls, seed: int) -> Deck:
        """Reproducible shuffle for tests (NOT for play): ``random.Random(seed)``."""
        return cls.shuffled(random.Random(seed))

    @property
    def stub(self) -> tuple[int, ...]:
        """The undealt cards, in dealing order."""
        return self.order[self.pos :]

    @property
    def remaining(self) -> int:
        """Stub size."""
        return len(self.order) - self.pos

    def __len__(self) -> int:
        return len(self.order) - self.pos

    def deal(self, n: int = 1) -> tuple[tuple[int, ...], Deck]:
        """Take the next ``n`` cards: ``(cards, rest_deck)``. Raises if the stub is short."""
        if type(n) is not int or n < 0:
            raise ValueError(f"cannot deal {n!r} cards")
        end = self.pos + n
        if end > len(self.order):
            raise ValueError(f"cannot deal {n} cards: only {self.remaining} left")
        return self.order[self.pos : end], Deck._trusted(self.order, end)

    def burn(self) -> Deck:
        """Discard the next card face down (the burnt card stays private)."""
        return self.deal(1)[1]
