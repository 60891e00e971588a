"""Finished hands: the stored record, per-viewer JSON and PHH (via felt_engine.phh)."""

from __future__ import annotations

from typing import Any

from felt_contracts.table import HandHistory, HandOperation, HandSummary, TableConfig, TournamentHand
from felt_engine import phh
from felt_engine.cards import card_str
from felt_engine.operations import Operation
from felt_engine.phh_export import hand_of
from felt_engine.profiles import Structure, TableStakes, bet_unit, get_profile
from felt_engine.state import HandState
from felt_engine.views import visible_operations


def tournament_of(config: TableConfig) -> dict[str, Any] | None:
    """What a tournament table's hands record of their tournament: its id and the level."""
    return None if config.chips is None else {"tournament_id": config.chips, "level": config.level}


def record_of(
    hand: HandState,
    table_id: str,
    status: str,
    participants: dict[int, str],
    started_at: str,
    ended_at: str,
    *,
    tournament: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything needed later (private cards included; redacted when read)."""
    return {
        "hand_id": hand.hand_id,
        "table_id": table_id,
        "rules_version": hand.rules_version,
        "status": status,
        "game": hand.profile.game,
        "structure": hand.structure.value,
        "blinds": hand.profile.blinds,
        "small_blind": hand.stakes.small_blind,
        "big_blind": hand.stakes.big_blind,
        "ante": hand.stakes.ante,
        "ante_mode": hand.stakes.ante_mode,
        "straddle": hand.stakes.straddle,
        "bet_unit": bet_unit(hand.profile, hand.stakes),
        "seats": list(hand.seats),
        "button": hand.button_seat,
        "participants": {str(seat): pid for seat, pid in participants.items()},
        "starting_stacks": list(hand.starting_stacks),
        "final_stacks": list(hand.stacks),
        "board": [card_str(card) for card in hand.board],
        "pot": sum(hand.contrib),
        "showdown": hand.showdown,
        "started_at": started_at,
        "ended_at": ended_at,
        "operations": [op.to_dict() for op in hand.operations if op.kind != "burn"],
        "tournament": tournament,
    }


def to_phh(rec: dict[str, Any], viewer_seat: int | None) -> str:
    profile = get_profile(rec["rules_version"])
    stakes = TableStakes(
        rec["small_blind"],
        rec["big_blind"],
        rec["ante"],
        structure=Structure(rec["structure"]),
        ante_mode=rec.get("ante_mode", "each"),
        straddle=rec.get("straddle", 0),
    )
    hand = hand_of(
        profile,
        stakes,
        rec["seats"],
        rec["button"],
        rec["starting_stacks"],
        rec["final_stacks"],
        [Operation.from_dict(op) for op in rec["operations"]],
        players={int(seat): pid for seat, pid in rec["participants"].items()},
        extra={"hand": rec["hand_id"], "table": rec["table_id"], **_event(rec.get("tournament"))},
    )
    order = hand.extra["seats"]  # Felt's seats in PHH order (hand_of)
    assert isinstance(order, list)
    viewer_index = order.index(viewer_seat) if viewer_seat in rec["seats"] else None
    return phh.to_phh(phh.redact(hand, viewer_index))


def _event(tournament: dict[str, Any] | None) -> dict[str, object]:
    """PHH's own fields for a tournament hand: the `event` (the tournament) and its `level`."""
    return {} if tournament is None else {"event": tournament["tournament_id"], "level": tournament["level"]}


def summary(rec: dict[str, Any]) -> HandSummary:
    return HandSummary(
        hand_id=rec["hand_id"],
        table_id=rec["table_id"],
        rules_version=rec["rules_version"],
        status=rec["status"],
        started_at=rec["started_at"],
        ended_at=rec["ended_at"],
        seats=rec["participants"],
        pot=rec["pot"],
        showdown=rec["showdown"],
    )


def history(rec: dict[str, Any], viewer: str | None, fmt: str) -> HandHistory:
    viewer_seat = next(
        (int(seat) for seat, pid in rec["participants"].items() if viewer is not None and pid == viewer), None
    )
    return HandHistory(
        summary=summary(rec),
        button=rec["button"],
        starting_stacks={str(seat): stack for seat, stack in zip(rec["seats"], rec["starting_stacks"])},
        final_stacks={str(seat): stack for seat, stack in zip(rec["seats"], rec["final_stacks"])},
        board=list(rec["board"]),
        operations=[
            HandOperation(**{key: stack for key, stack in op.items() if key != "allIn"}, all_in=op["allIn"])
            for op in visible_operations([Operation.from_dict(op) for op in rec["operations"]], viewer_seat)
        ],
        phh=to_phh(rec, viewer_seat) if fmt == "phh" else None,
        tournament=TournamentHand(
            **rec["tournament"], small_blind=rec["small_blind"], big_blind=rec["big_blind"], ante=rec["ante"]
        )
        if rec.get("tournament")
        else None,
    )
