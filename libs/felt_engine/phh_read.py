"""Read PHH: a ``.phh`` hand or a ``.phhs`` collection, into :class:`PhhHand` values.

Why a reader of our own: replaying a history through Felt's engine needs the file's
fields checked against Felt's rules with an error that names the line at fault, and
PokerKit's loader (a dev dependency) neither knows Felt's codes nor reports lines.

What it accepts: every PHH required field for the hold'em and draw variants, the
optional fields of the PHH standard (PokerKit's list), and user-defined fields (keys
starting with ``_``; ``_felt_*`` keys are Felt's). Amounts are integers. The TOML
itself is parsed by the standard library (:mod:`tomllib`); lines are found by a small
scan of the text, because ``tomllib`` reports none for valid documents.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from felt_engine.errors import EngineError
from felt_engine.phh import OPTIONAL_FIELDS, PhhHand

__all__ = ["PhhInputError", "ReadHand", "INPUT_CODES", "read_phh"]

INPUT_CODES = frozenset(
    {
        "unreadable",
        "toml_syntax",
        "not_a_hand",
        "missing_field",
        "unknown_field",
        "bad_field",
        "unknown_variant",
        "unsupported",
        "malformed_cards",
        "duplicate_card",
        "bad_action",
        "out_of_turn",
        "card_mismatch",
        "hand_incomplete",
    }
)

_KNOWN = {
    "variant",
    "antes",
    "blinds_or_straddles",
    "min_bet",
    "small_bet",
    "big_bet",
    "starting_stacks",
    "actions",
    "players",
    "bring_in",
    "ante_trimming_status",
}
_REQUIRED = ("variant", "antes", "blinds_or_straddles", "starting_stacks", "actions")


class PhhInputError(EngineError, ValueError):
    """A history Felt cannot replay. ``code`` is stable: one of :data:`INPUT_CODES` or
    an engine :class:`~felt_engine.errors.IllegalAction`/``ConfigError`` code;
    ``line`` (1-based) is the line at fault; ``index``/``action`` name the action."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        line: int | None = None,
        index: int | None = None,
        action: str | None = None,
        hand: str | None = None,
    ) -> None:
        super().__init__(code, message)
        self.line, self.index, self.action, self.hand = line, index, action, hand

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "hand": self.hand,
            "action_index": self.index,
            "action": self.action,
        }


@dataclass(frozen=True)
class ReadHand:
    """One hand of a file: its name (``.phhs`` table key, else None), the hand, and
    where its fields and actions are in the text (1-based lines)."""

    name: str | None
    hand: PhhHand
    ante_trimming: bool
    lines: dict[str, int] = field(default_factory=dict)
    action_lines: tuple[int, ...] = ()
    start_line: int = 1

    def line_of(self, key: str) -> int:
        return self.lines.get(key, self.start_line)

    def error(self, code: str, message: str, key: str = "", index: int | None = None) -> PhhInputError:
        """An error at field ``key`` or at action ``index``."""
        if index is not None:
            line = self.action_lines[index] if index < len(self.action_lines) else self.line_of("actions")
            return PhhInputError(code, message, line=line, index=index, action=self.hand.actions[index], hand=self.name)
        return PhhInputError(code, message, line=self.line_of(key), hand=self.name)


# ---- where things are in the text -----------------------------------------------------

_HEADER = re.compile(r"\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"""\s*([A-Za-z0-9_-]+|"[^"]*"|'[^']*')\s*=""")
_TOKEN = re.compile(r""""(?:[^"\\]|\\.)*"|'[^']*'|#.*|\]|[^"'#\]]+""")


@dataclass
class _Section:
    start: int
    lines: dict[str, int] = field(default_factory=dict)
    actions: list[int] = field(default_factory=list)


def _locate(text: str) -> dict[str | None, _Section]:
    """Sections (None = top level) -> line of each key and of each action string."""
    sections: dict[str | None, _Section] = {None: _Section(1)}
    current = sections[None]
    in_actions = False
    for number, line in enumerate(text.splitlines(), start=1):
        rest = line
        if not in_actions:
            header = _HEADER.match(line)
            if header:
                name = header.group(1).strip("\"'")
                current = sections.setdefault(name, _Section(number))
                continue
            key = _KEY.match(line)
            if not key:
                continue
            name = key.group(1).strip("\"'")
            current.lines.setdefault(name, number)
            if name != "actions":
                continue
            rest = line[key.end() :].lstrip()
            if not rest.startswith("["):
                continue
            rest, in_actions = rest[1:], True
        for token in _TOKEN.findall(rest):
            if token == "]":
                in_actions = False
                break
            if token[0] in "\"'":
                current.actions.append(number)
            elif token.startswith("#"):
                break
    return sections


# ---- fields -----------------------------------------------------------------------------


def _ints(data: dict[str, Any], key: str, n: int | None, *, positive: bool = False, where: _Section) -> list[int]:
    value = data[key]
    line = where.lines.get(key, where.start)
    ok = isinstance(value, list) and all(type(x) is int and (x > 0 if positive else x >= 0) for x in value)
    if not ok:
        kind = "positive" if positive else "non-negative"
        raise PhhInputError("bad_field", f"{key} must be a list of {kind} integers", line=line)
    if n is not None and len(value) != n:
        raise PhhInputError("bad_field", f"{key} has {len(value)} entries for {n} players", line=line)
    ints: list[int] = value  # checked above
    return ints


def _int_or_none(data: dict[str, Any], key: str, where: _Section) -> int | None:
    value = data.get(key)
    if value is not None and (type(value) is not int or value <= 0):
        raise PhhInputError("bad_field", f"{key} must be a positive integer", line=where.lines.get(key, where.start))
    return value


def _hand(name: str | None, data: dict[str, Any], where: _Section) -> ReadHand:
    def at(key: str) -> int:
        return where.lines.get(key, where.start)

    for key in data:
        if key not in _KNOWN and key not in OPTIONAL_FIELDS and not key.startswith("_"):
            raise PhhInputError("unknown_field", f"unknown field {key!r} (user fields start with '_')", line=at(key))
    for key in _REQUIRED:
        if key not in data:
            raise PhhInputError("missing_field", f"required field {key!r} is missing", line=where.start)
    if not isinstance(data["variant"], str):
        raise PhhInputError("bad_field", "variant must be a string", line=at("variant"))
    stacks = _ints(data, "starting_stacks", None, positive=True, where=where)
    n = len(stacks)
    if n < 2:
        raise PhhInputError("bad_field", "a hand needs at least 2 players", line=at("starting_stacks"))
    antes = _ints(data, "antes", n, where=where)
    blinds = _ints(data, "blinds_or_straddles", n, where=where)
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhInputError("bad_field", "actions must be a list of strings", line=at("actions"))
    players = data.get("players")
    if players is not None and (
        not isinstance(players, list) or len(players) != n or not all(isinstance(p, str) for p in players)
    ):
        raise PhhInputError("bad_field", f"players must be {n} names", line=at("players"))
    if data.get("bring_in"):
        raise PhhInputError("unsupported", "Felt has no bring-in (stud) games", line=at("bring_in"))
    trimming = data.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise PhhInputError("bad_field", "ante_trimming_status must be true or false", line=at("ante_trimming_status"))
    extra = {k: v for k, v in data.items() if k not in _KNOWN}
    hand = PhhHand(
        variant=data["variant"],
        antes=antes,
        blinds=blinds,
        min_bet=_int_or_none(data, "min_bet", where),
        starting_stacks=stacks,
        players=list(players or []),
        actions=list(actions),
        extra=extra,
        small_bet=_int_or_none(data, "small_bet", where),
        big_bet=_int_or_none(data, "big_bet", where),
    )
    action_lines = tuple(where.actions) if len(where.actions) == len(actions) else ()
    return ReadHand(name, hand, trimming, dict(where.lines), action_lines, where.start)


def read_phh(text: str) -> list[ReadHand]:
    """Every hand of a ``.phh`` (one hand) or ``.phhs`` (tables of hands) text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = re.search(r"line (\d+)", str(e))
        raise PhhInputError("toml_syntax", f"not TOML: {e}", line=int(found.group(1)) if found else None) from None
    sections = _locate(text)
    if "variant" in data:
        return [_hand(None, data, sections[None])]
    if not data or not all(isinstance(v, dict) for v in data.values()):
        raise PhhInputError("not_a_hand", "neither a hand (no 'variant') nor a collection of hands", line=1)
    out = []
    for name, table in data.items():
        where = sections.get(name, _Section(1))
        try:
            out.append(_hand(name, table, where))
        except PhhInputError as e:
            e.hand = name
            raise
    return out
