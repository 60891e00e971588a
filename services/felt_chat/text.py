"""The plain-text rule: clean (control characters out, trimmed), then 1..500 characters.

The text is never HTML-escaped here: it is stored and delivered as plain text, and every
consumer escapes it where it renders it (browsers: `textContent`)."""

from __future__ import annotations

from felt_contracts.chat import MAX_CHAT_CHARS, clean_chat_text
from felt_contracts.errors import ErrorCode
from felt_runtime.bus import BusError

MAX_DISPLAY_NAME = 64


def check_text(raw: str) -> str:
    """The cleaned text, or `invalid_message` (empty or longer than 500 characters)."""
    text = clean_chat_text(raw)
    if not text:
        raise BusError(
            ErrorCode.INVALID_MESSAGE, "chat text is empty", reason="empty", length=0, max_chars=MAX_CHAT_CHARS
        )
    if len(text) > MAX_CHAT_CHARS:
        raise BusError(
            ErrorCode.INVALID_MESSAGE,
            f"chat text is longer than {MAX_CHAT_CHARS} characters",
            reason="too_long",
            length=len(text),
            max_chars=MAX_CHAT_CHARS,
        )
    return text


def clean_display_name(name: str, fallback: str) -> str:
    """The display name without control characters; the participant id if nothing is left."""
    return clean_chat_text(name)[:MAX_DISPLAY_NAME] or fallback[:MAX_DISPLAY_NAME]
