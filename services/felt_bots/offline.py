"""The agent view of an engine state, shaped exactly like `GET /api/v2/poker/tables/{id}`, and
an API action turned back into an engine action: the decision functions play offline
(harness, property tests) on the same input they get online."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic.alias_generators import to_camel

from felt_contracts.table import TableConfig
from felt_engine import Action, HandState, TableStakes, from_add_now, parse_cards, seat_view


def config_of(table_id: str, rules_version: str, stakes: TableStakes, seats: int = 6) -> TableConfig:
    return TableConfig(
        table_id=table_id,
        rules_version=rules_version,
        structure=stakes.structure.value if stakes.structure else None,
        small_blind=stakes.small_blind,
        big_blind=stakes.big_blind,
        ante=stakes.ante,
        min_buy_in=stakes.min_buy_in,
        max_buy_in=stakes.max_buy_in,
        seats=seats,
    )


@lru_cache(maxsize=64)
def _camel(model: TableConfig) -> tuple[tuple[str, Any], ...]:
    return tuple((to_camel(k), v) for k, v in model.model_dump(mode="json").items())


def camel(model: TableConfig) -> dict[str, Any]:
    """The config as the gateway renders it (camelCase), a fresh dict per view."""
    return dict(_camel(model))


def view(st: HandState, seat: int, config: TableConfig) -> dict[str, Any]:
    """What the gateway answers `seat`'s agent about this hand (no other private cards)."""
    v = seat_view(st, seat)
    legal = v.get("legalActions")
    if legal is not None:
        legal = {**legal, "draw": legal.get("draw"), "betAdd": legal.get("betAdd")}
    seats = [
        {
            "seat": x["seat"],
            "participantId": f"p{x['seat']}",
            "stack": x["stack"],
            "bet": x["bet"],
            "committed": x["committed"],
            "folded": x["folded"],
            "allIn": x["allIn"],
            "cardCount": x["cardCount"],
            "cards": x["cards"],
            "shown": x["shown"],
            "leaving": x["leaving"],
            "payout": x["payout"],
            "handName": x["handName"],
        }
        for x in v["seats"]
    ]
    hand = {
        "handId": v["handId"] or "offline",
        "rulesVersion": v["rulesVersion"],
        "structure": v["structure"],
        "street": v["street"],
        "phase": v["phase"],
        "button": v["button"],
        "smallBlindSeat": v["smallBlind"],
        "bigBlindSeat": v["bigBlind"],
        "board": v["board"],
        "pot": v["pot"],
        "pots": [{"amount": p["amount"], "eligible": list(p["eligible"])} for p in v["pots"]],
        "toMatch": v["toMatch"],
        "actorSeatId": v["actorSeatId"],
        "turnId": v["turnId"],
        "deadline": None,
        "seats": seats,
        "holeCards": v.get("holeCards"),
        "legalActions": legal,
        "preaction": v.get("preaction"),
        "preactionsAvailable": None,
        "showdown": v["showdown"],
        "timeBankSeconds": None,
        "inTimeBank": False,
    }
    table_seats = [
        {
            "seat": x["seat"],
            "participantId": x["participantId"],
            "kind": "agent",
            "name": "",
            "stack": x["stack"],
            "status": "playing",
            "ready": True,
            "connected": True,
            "sittingOut": False,
        }
        for x in seats
    ]
    return {
        "table": {
            "tableId": config.table_id,
            "rulesVersion": config.rules_version,
            "config": camel(config),
            "seq": 0,
            "yourSeatId": seat,
            "autoRebuy": False,
            "canShow": False,
            "seats": table_seats,
            "hand": hand,
            "nextHandAt": None,
            "paused": None,
            "handsPlayed": 0,
            "closed": False,
            "hostId": None,
            "handsLeft": None,
            "closesAt": None,
            "host": None,
        }
    }


def engine_action(st: HandState, seat: int, action: dict[str, Any]) -> Action:
    """The API action JSON as the table service reads it (ante-nl-1: `hit`, add-now `bet`)."""
    kind = action["type"]
    if kind == "hit" or (kind == "bet" and st.profile.amount_convention == "add_now"):
        return from_add_now(st, seat, kind, action.get("amount"))
    if kind == "draw":
        return Action("draw", None, parse_cards(action.get("cards", [])))
    return Action(kind, action.get("amount"))
