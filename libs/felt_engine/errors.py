"""Typed engine errors with stable machine codes.

Every rejected call raises before anything is built, so the caller's state is
untouched (states are immutable values anyway). ``code`` is part of the public
contract: the table service maps it to a wire error; never change an existing one.
"""

from __future__ import annotations

__all__ = ["EngineError", "IllegalAction", "ConfigError", "ERROR_CODES"]

ERROR_CODES = frozenset(
    {
        # whose turn / hand phase
        "hand_over",
        "not_your_turn",
        "not_in_hand",
        "stale_turn",
        "not_betting_phase",
        "not_draw_phase",
        # action shape
        "unknown_action",
        "amount_required",
        "amount_not_allowed",
        "invalid_amount",
        # betting rules
        "cannot_check",
        "cannot_call",
        "cannot_bet",
        "cannot_raise",
        "cannot_all_in",
        "amount_out_of_bounds",
        "over_allowance",
        # draw, show, pre-actions
        "invalid_discard",
        "cannot_show",
        "invalid_preaction",
        # leaving
        "already_folded",
    }
)


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code = "engine_error"

    def __init__(self, code: str, message: str = "") -> None:
        self.code = code
        self.message = message or code
        super().__init__(f"{code}: {self.message}")


class IllegalAction(EngineError):
    """A player/caller request the rules refuse. Nothing changed."""

    def __init__(self, code: str, message: str = "") -> None:
        assert code in ERROR_CODES, code
        super().__init__(code, message)


class ConfigError(EngineError, ValueError):
    """A table configuration or hand setup that the profile does not allow (caller bug
    or operator error, never a player's move). Codes: ``bad_stakes``, ``bad_seats``,
    ``bad_button``, ``unknown_rules_version``, ``bad_structure``, ``short_stack``,
    ``bad_allowance``."""

    def __init__(self, code: str, message: str = "", field: str | None = None) -> None:
        super().__init__(code, message)
        self.field = field  # the stakes field at fault, where one is (``big_blind``, ``max_buy_in``...)
