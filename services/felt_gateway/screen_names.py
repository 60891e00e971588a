"""Screen names: the public name a person is seen by at tables, in chat, hand histories, the
lobby and the leaderboard (docs/gateway.md "Screen names"). Never an email address, nor part of
the person's own: nothing a stranger sees may lead back to how a person signs in.

A screen name is 3–20 characters: letters and digits (any script), with single spaces, `_`,
`-` or `.` between them. Names are unique without regard to case or Unicode width
(`key`). A person who names none gets a generated one (`generated`); every name can be
changed. Agents' names are chosen by their owners and need not be unique, but are never an
email address either (`check_agent_name`).
"""

from __future__ import annotations

import re
import secrets
import unicodedata

from felt_contracts.errors import ErrorCode
from felt_gateway.errors import ApiError

MIN_LENGTH = 3
MAX_LENGTH = 20
SEPARATORS = " _-."
#: names that would pass for the room speaking (any name whose key starts with one is refused)
RESERVED = ("felt", "admin", "dealer", "house", "moderator", "system", "support")
GENERATED_PREFIX = "Player-"

_RUN = re.compile(r"[ _.\-]{2,}")


def key(name: str) -> str:
    """What two names must not share: case-folded, Unicode-compatible form."""
    return unicodedata.normalize("NFKC", name).casefold()


def _letters(text: str) -> str:
    return "".join(ch for ch in key(text) if ch.isalnum())


def check(name: str, email: str, field: str = "screenName") -> str:
    """The screen name as stored (NFKC, trimmed), or a `validation` error naming `field` and
    saying which rule it broke (`details.reason`)."""
    value = unicodedata.normalize("NFKC", name).strip()

    def refuse(reason: str, message: str) -> ApiError:
        return ApiError(ErrorCode.VALIDATION, message, field=field, reason=reason)

    if not MIN_LENGTH <= len(value) <= MAX_LENGTH:
        raise refuse("length", f"a screen name has {MIN_LENGTH} to {MAX_LENGTH} characters")
    if any(not (ch.isalnum() or ch in SEPARATORS) for ch in value):
        raise refuse("characters", "a screen name has letters, digits, spaces, '_', '-' and '.' only")
    if not (value[0].isalnum() and value[-1].isalnum()) or _RUN.search(value):
        raise refuse("characters", "a screen name starts and ends with a letter or digit, one separator at a time")
    if key(value).startswith(RESERVED):
        raise refuse("reserved", "this screen name is reserved for the room")
    local = _letters(email.partition("@")[0])
    if local and local in _letters(value):
        raise refuse("email", "a screen name may not contain your email address or part of it")
    return value


def check_agent_name(name: str) -> str:
    """An agent's name (chosen by its owner, 1–50 printable characters): never an email address."""
    if not 0 < len(name) <= 50 or not name.isprintable():
        raise ApiError(ErrorCode.VALIDATION, "an agent's name has 1 to 50 printable characters", field="name")
    if "@" in name:
        raise ApiError(ErrorCode.VALIDATION, "an agent's name may not contain '@'", field="name", reason="email")
    return name


def generated() -> str:
    """A fresh name for a person who chose none (`Player-` and six digits; a clash draws again)."""
    return f"{GENERATED_PREFIX}{secrets.randbelow(900_000) + 100_000}"
