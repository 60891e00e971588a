"""Felt rules engine: pure (no I/O, clocks, asyncio or randomness it did not receive).

The table service drives a hand with these functions; every one returns a new
immutable :class:`HandState` (plus the :class:`Operation` records it performed) and
never mutates its input, so a refused wallet escrow means "keep the old state".
"""

from felt_engine.actions import ACTION_KINDS, PREACTIONS, Action, Bounds, LegalActions
from felt_engine.betting import from_add_now
from felt_engine.cards import Deck, card_str, cards_str, parse_card, parse_cards
from felt_engine.errors import ConfigError, EngineError, IllegalAction
from felt_engine.evaluator import best_five, hand_class, rank_hand
from felt_engine.hand import (
    Step,
    apply,
    leave,
    legal_actions,
    next_button,
    preview,
    show,
    start_hand,
    timeout,
)
from felt_engine.operations import COMMIT_KINDS, PRIVATE_KINDS, Operation, chips_committed
from felt_engine.pots import Settlement, settle
from felt_engine.preactions import AutoAction, auto_action, available_preactions, set_preaction, step_auto
from felt_engine.profiles import (
    PROFILES,
    RulesProfile,
    StreetSpec,
    Structure,
    TableStakes,
    bet_unit,
    eligible_stack,
    get_profile,
    resolve_structure,
    validate_stakes,
)
from felt_engine.state import HandState
from felt_engine.views import public_view, seat_view, visible_cards, visible_operations

__all__ = [
    # profiles and configuration
    "PROFILES",
    "RulesProfile",
    "StreetSpec",
    "Structure",
    "TableStakes",
    "bet_unit",
    "eligible_stack",
    "get_profile",
    "resolve_structure",
    "validate_stakes",
    # the hand
    "HandState",
    "Step",
    "start_hand",
    "apply",
    "preview",
    "legal_actions",
    "timeout",
    "leave",
    "show",
    "next_button",
    # actions and operations
    "ACTION_KINDS",
    "PREACTIONS",
    "Action",
    "Bounds",
    "LegalActions",
    "from_add_now",
    "Operation",
    "COMMIT_KINDS",
    "PRIVATE_KINDS",
    "chips_committed",
    # pre-actions
    "AutoAction",
    "auto_action",
    "available_preactions",
    "set_preaction",
    "step_auto",
    # views
    "public_view",
    "seat_view",
    "visible_cards",
    "visible_operations",
    # errors
    "EngineError",
    "IllegalAction",
    "ConfigError",
    # cards, evaluation, pots
    "Deck",
    "card_str",
    "cards_str",
    "parse_card",
    "parse_cards",
    "rank_hand",
    "best_five",
    "hand_class",
    "Settlement",
    "settle",
]
