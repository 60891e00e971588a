"""Export a finished hand as PHH (Poker Hand History, the TOML format PokerKit reads).

Why PHH: it is the open, replayable hand-history standard, so exported hands can be
checked by an independent engine (PokerKit) and read by analysis tools.

Conventions (PHH spec, https://github.com/uoftcprg/phh-std):
- players are listed clockwise starting with the first seat LEFT of the button (the
  small blind in blind games); the button is last. All per-player lists follow that
  order. Heads-up, the spec reverses blinds: `blinds = [1, 2]` means p1 (the big
  blind) posts 2 and p2 (the button) posts 1 and acts first preflop.
- helpers take 0-based player indices (list positions) and write 1-based "pN".
- `cbr` amounts are the player's total bet on the current street ("raise to"),
  antes excluded; a Felt `bet` of "chips to add now" must be converted first.
- unknown cards are "??" per card (a hidden hold'em hand is "????").
- draw: every discard of the round ("pN sd ...") comes before the replacement
  cards ("d dh pN ..."); see `draw_round`.

Variants: hold'em no-limit is "NT", fixed-limit "FT" (small_bet/big_bet, no
min_bet). Pot-limit hold'em has no PHH code: it is written as "NT" (every pot-limit
action is a legal no-limit action, so it replays exactly) plus `_felt_betting =
"pot-limit"`. Five-card draw (high) has no PHH code either: Felt uses the codes
"N5CD", "P5CD", "F5CD" built like PHH's own (betting letter + game); standard PHH
tools will not load those files. Extra fields that are not PHH optional fields are
written as user-defined fields: keys already starting with "_" as they are, others
as "_felt_<key>".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

__all__ = [
    "OPTIONAL_FIELDS",
    "PhhError",
    "PhhHand",
    "bet_raise_to",
    "check_call",
    "deal_board",
    "deal_hole",
    "discard",
    "draw_round",
    "fold",
    "muck",
    "redact",
    "show",
    "to_phh",
    "variant_for",
]


class PhhError(ValueError):
    """A hand description that would not be a valid PHH file."""


OPTIONAL_FIELDS = frozenset(
    {
        "author",
        "event",
        "url",
        "venue",
        "address",
        "city",
        "region",
        "postal_code",
        "country",
        "time",
        "time_zone",
        "time_zone_abbreviation",
        "day",
        "month",
        "year",
        "hand",
        "level",
        "seats",
        "seat_count",
        "table",
        "finishing_stacks",
        "winnings",
        "currency",
        "currency_symbol",
        "ante_trimming_status",
        "time_limit",
        "time_banks",
    }
)
_REQUIRED = (
    "variant",
    "antes",
    "blinds_or_straddles",
    "small_bet",
    "big_bet",
    "min_bet",
    "starting_stacks",
    "actions",
    "players",
)

_CARDS = r"(?:[2-9TJQKA?][cdhs?])+"
_CARDS_RE = re.compile(_CARDS)
_ACTION_RE = re.compile(
    rf"d db (?P<board>{_CARDS})"
    rf"|d dh p(?P<dh>[1-9][0-9]*) (?P<hole>{_CARDS})"
    rf"|p(?P<p>[1-9][0-9]*) (?:f|cc|cbr [1-9][0-9]*|sd(?: (?P<sd>{_CARDS}))?"
    rf"|sm(?: (?:-|{_CARDS}))?)"
)


@dataclass(frozen=True)
class PhhHand:
    """A finished (or partial) hand in PHH terms; lists are in PHH player order.

    `min_bet` is for no-/pot-limit variants, `small_bet`/`big_bet` for fixed-limit
    ones (variant code starting with "F"). `extra` holds optional/user fields
    (e.g. hand, table, seats, finishing_stacks, rulesVersion); None values are
    left out.
    """

    variant: str
    antes: list[int]
    blinds: list[int]
    min_bet: int | None
    starting_stacks: list[int]
    players: list[str]
    actions: list[str]
    extra: dict[str, object] = field(default_factory=dict)
    small_bet: int | None = None
    big_bet: int | None = None


def variant_for(game: str, betting: str) -> tuple[str, dict[str, object]]:
    """PHH variant code (and extra fields) for a Felt game ("holdem" | "draw5") and
    betting structure ("no-limit" | "pot-limit" | "fixed-limit")."""
    letter = {"no-limit": "N", "pot-limit": "P", "fixed-limit": "F"}.get(betting)
    if letter is None:
        raise PhhError(f"unknown betting structure {betting!r}")
    if game == "holdem":
        if betting == "pot-limit":
            return "NT", {"_felt_betting": "pot-limit"}
        return letter + "T", {}
    if game == "draw5":
        return letter + "5CD", {}
    raise PhhError(f"unknown game {game!r}")


# ---- action strings -----------------------------------------------------------------


def _cards(cards: str | Iterable[str]) -> str:
    text = cards if isinstance(cards, str) else "".join(cards)
    if not _CARDS_RE.fullmatch(text):
        raise PhhError(f"not PHH card notation: {text!r}")
    return text


def _p(i: int) -> str:
    if not isinstance(i, int) or isinstance(i, bool) or i < 0:
        raise PhhError(f"player index must be an int >= 0, got {i!r}")
    return f"p{i + 1}"


def deal_hole(i: int, cards: str | Iterable[str]) -> str:
    """`d dh pN cards`: hole cards (or draw replacements) dealt to player i."""
    return f"d dh {_p(i)} {_cards(cards)}"


def deal_board(cards: str | Iterable[str]) -> str:
    return f"d db {_cards(cards)}"


def fold(i: int) -> str:
    return f"{_p(i)} f"


def check_call(i: int) -> str:
    return f"{_p(i)} cc"


def bet_raise_to(i: int, amount: int) -> str:
    """`pN cbr amount`: amount = player's total bet on this street afterwards."""
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise PhhError(f"bet/raise-to amount must be a positive int, got {amount!r}")
    return f"{_p(i)} cbr {amount}"


def show(i: int, cards: str | Iterable[str]) -> str:
    return f"{_p(i)} sm {_cards(cards)}"


def muck(i: int) -> str:
    return f"{_p(i)} sm"


def discard(i: int, cards: str | Iterable[str] = ()) -> str:
    """`pN sd [cards]`: discard these cards; none means standing pat."""
    text = cards if isinstance(cards, str) else "".join(cards)
    return f"{_p(i)} sd" if not text else f"{_p(i)} sd {_cards(text)}"


def draw_round(
    draws: Sequence[tuple[int, str | Iterable[str], str | Iterable[str]]],
) -> list[str]:
    """One draw round, `draws` = (player, discarded, drawn) in acting order.

    PHH (and PokerKit) want all discards first, then the replacement cards.
    """
    lines = [discard(i, discarded) for i, discarded, _ in draws]
    for i, discarded, drawn in draws:
        d_text = discarded if isinstance(discarded, str) else "".join(discarded)
        n_text = drawn if isinstance(drawn, str) else "".join(drawn)
        if len(d_text) != len(n_text):
            raise PhhError(f"player {i} discarded {d_text!r} but drew {n_text!r}")
        if n_text:
            lines.append(deal_hole(i, n_text))
    return lines


# ---- redaction ----------------------------------------------------------------------


def redact(h: PhhHand, viewer_index: int | None) -> PhhHand:
    """Copy of `h` as player `viewer_index` (0-based; None = spectator) may see it.

    Other players' dealt and discarded cards become "??"; the viewer's own cards
    and everything shown at showdown ("sm") stay.
    """
    viewer = None if viewer_index is None else _p(viewer_index)
    actions = []
    for line in h.actions:
        body, sep, comment = line.partition(" #")
        words = body.split()
        if len(words) == 4 and words[:2] == ["d", "dh"] and words[2] != viewer:
            words[3] = "??" * (len(words[3]) // 2)
        elif len(words) == 3 and words[1] == "sd" and words[0] != viewer:
            words[2] = "??" * (len(words[2]) // 2)
        actions.append(" ".join(words) + sep + comment)
    return replace(h, actions=actions)


# ---- TOML ---------------------------------------------------------------------------


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_str(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _toml_str(k)


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        pairs = (f"{_toml_key(str(k))} = {_toml_value(x)}" for k, x in v.items() if x is not None)
        return "{" + ", ".join(pairs) + "}"
    raise PhhError(f"cannot write {type(v).__name__} value {v!r} to PHH")


def _extra_key(key: str) -> str:
    if key in _REQUIRED or key == "blinds":
        raise PhhError(f"extra field {key!r} clashes with a PhhHand field")
    if key in OPTIONAL_FIELDS or key.startswith("_"):
        return key
    return "_felt_" + key


def _validate(h: PhhHand) -> None:
    n = len(h.starting_stacks)
    if n < 2:
        raise PhhError("a hand needs at least 2 players")
    for name, values in (("antes", h.antes), ("blinds", h.blinds)):
        if len(values) != n:
            raise PhhError(f"{name} has {len(values)} entries for {n} players")
        if any(not isinstance(x, int) or x < 0 for x in values):
            raise PhhError(f"{name} must be ints >= 0: {values!r}")
    if any(not isinstance(x, int) or x <= 0 for x in h.starting_stacks):
        raise PhhError(f"starting stacks must be ints > 0: {h.starting_stacks!r}")
    if h.players and len(h.players) != n:
        raise PhhError(f"{len(h.players)} player names for {n} players")
    if h.variant.startswith("F"):
        if not (h.small_bet and h.big_bet) or h.min_bet is not None:
            raise PhhError(f"fixed-limit {h.variant!r} needs small_bet and big_bet, no min_bet")
    elif not h.min_bet or h.small_bet is not None or h.big_bet is not None:
        raise PhhError(f"{h.variant!r} needs min_bet (and no small_bet/big_bet)")
    for line in h.actions:
        body = line.partition(" #")[0].strip()
        m = _ACTION_RE.fullmatch(body)
        if not m:
            raise PhhError(f"not a PHH action: {line!r}")
        player = m["dh"] or m["p"]
        if player and int(player) > n:
            raise PhhError(f"action {line!r} names a player beyond p{n}")


def to_phh(h: PhhHand) -> str:
    """The hand as PHH TOML text (validated; raises PhhError)."""
    _validate(h)
    fields: list[tuple[str, object]] = [
        ("variant", h.variant),
        ("antes", list(h.antes)),
        ("blinds_or_straddles", list(h.blinds)),
    ]
    if h.min_bet is not None:
        fields.append(("min_bet", h.min_bet))
    else:
        fields += [("small_bet", h.small_bet), ("big_bet", h.big_bet)]
    fields.append(("starting_stacks", list(h.starting_stacks)))
    if h.players:
        fields.append(("players", list(h.players)))
    seen = {k for k, _ in fields} | {"actions"}
    extras: list[tuple[str, object]] = []
    for key, value in h.extra.items():
        name = _extra_key(key)
        if name in seen:
            raise PhhError(f"extra field {key!r} is written twice (as {name!r})")
        seen.add(name)
        if value is not None:
            extras.append((name, value))
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in fields]
    lines.append("actions = [")
    lines += [f"  {_toml_str(a)}," for a in h.actions]
    lines.append("]")
    lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in extras]
    return "\n".join(lines) + "\n"
