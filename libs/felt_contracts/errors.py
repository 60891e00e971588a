"""Stable error codes. Clients branch on these strings; never rename one, only add."""

from enum import StrEnum


class ErrorCode(StrEnum):
    # generic
    MALFORMED = "malformed"  # the message could not be parsed or failed validation
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"  # same idempotency key, different content; or a state conflict
    FORBIDDEN = "forbidden"
    UNAUTHORIZED = "unauthorized"
    THROTTLED = "throttled"
    UNAVAILABLE = "unavailable"  # a dependency did not answer in time; safe to retry
    INTERNAL = "internal"  # a bug: logged with the correlation id
    VALIDATION = "validation"  # well-formed input that fails a field rule (HTTP 422)
    # money
    INSUFFICIENT_FUNDS = "insufficient_funds"
    INVALID_AMOUNT = "invalid_amount"
    HAND_CLOSED = "hand_closed"  # settle/cancel/commit against a hand that already ended
    CHIPS_IN_PLAY = "chips_in_play"  # double-spend guard: chips committed to an unsettled hand
    LIMIT_EXCEEDED = "limit_exceeded"
    FROZEN = "frozen"
    REFILL_NOT_NEEDED = "refill_not_needed"  # chips at or above the refill threshold (details total, below)
    REFILL_TOO_SOON = "refill_too_soon"  # a refill was claimed this UTC day (details next_at)
    # play
    ILLEGAL_ACTION = "illegal_action"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_TURN = "stale_turn"
    NOT_SEATED = "not_seated"
    TABLE_FULL = "table_full"
    ALREADY_SEATED = "already_seated"
    ADMISSION = "admission"
    TABLE_CLOSED = "table_closed"  # the table reached its hand or time limit, or an operator closed it
    # hosted tables (docs/rules.md "Hosting a table")
    NOT_HOST = "not_host"  # a host control from someone who is not the table's host
    INVITE_INVALID = "invite_invalid"  # an invite code that is wrong or was revoked
    TOO_MANY_TABLES = "too_many_tables"  # the owner hosts as many open tables as allowed (details.limit)
    # tournaments
    ALREADY_REGISTERED = "already_registered"
    NOT_REGISTERED = "not_registered"
    TOURNAMENT_FULL = "tournament_full"
    REGISTRATION_CLOSED = "registration_closed"  # not (or no longer) taking entries
    TOURNAMENT_STARTED = "tournament_started"  # unregistering once it started
    # chat
    INVALID_MESSAGE = "invalid_message"  # chat text empty or too long after cleaning
