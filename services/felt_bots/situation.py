"""What a decision needs, read off the agent view (and nothing else), and the answers it
may give, spelled in the table's own protocol.

`Situation.of(view)` takes the JSON of `GET /api/v2/poker/tables/{id}` on the agent's turn.
Actions are built from `legalActions` only, so every answer is legal by construction: amounts
are clamped into the offered bounds, a fold is never sent when a check is free, and at
`ante-nl-1` check/call become `hit` and a bet or raise to a street total becomes `bet` with the
chips to add now.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from felt_engine.cards import card_str, parse_cards
from felt_engine.profiles import get_profile

Action = dict[str, Any]


@dataclass(frozen=True)
class Opponent:
    seat: int
    stack: int
    bet: int  # this street
    committed: int  # this hand
    all_in: bool


@dataclass(frozen=True)
class Situation:
    rules_version: str
    structure: str  # no-limit | pot-limit | fixed-limit
    street: str  # preflop, flop, turn, river; predraw, postdraw
    phase: str  # betting | draw
    hole: tuple[int, ...]
    board: tuple[int, ...]
    pot: int  # every chip committed this hand, current bets included
    stack: int
    bet: int  # my chips in this street
    committed: int  # my chips in this hand
    unit: int  # big blind, or the ante at ante-only tables
    legal: dict[str, Any]
    opponents: tuple[Opponent, ...]  # live (not folded) players other than me
    seats_after: int  # live players still to act after me in this street's order
    dealt: int  # players dealt in

    @classmethod
    def of(cls, view: dict[str, Any]) -> "Situation":
        table = view["table"]
        hand = table["hand"]
        me = table["yourSeatId"]
        config = table["config"]
        seats = hand["seats"]
        mine = next(s for s in seats if s["seat"] == me)
        live = [s for s in seats if not s["folded"]]
        order = [s["seat"] for s in sorted(seats, key=lambda s: (s["seat"] <= hand["button"], s["seat"]))]
        after = order[order.index(me) + 1 :] if me in order else []
        unit = config.get("bigBlind") or config.get("ante") or 1
        return cls(
            rules_version=hand["rulesVersion"],
            structure=hand["structure"],
            street=hand["street"],
            phase=hand["phase"],
            hole=parse_cards(hand["holeCards"] or ()),
            board=parse_cards(hand["board"]),
            pot=hand["pot"],
            stack=mine["stack"],
            bet=mine["bet"],
            committed=mine["committed"],
            unit=unit,
            legal=hand["legalActions"] or {},
            opponents=tuple(
                Opponent(s["seat"], s["stack"], s["bet"], s["committed"], s["allIn"]) for s in live if s["seat"] != me
            ),
            seats_after=sum(1 for s in live if s["seat"] in after and not s["allIn"]),
            dealt=len(seats),
        )

    # --- facts ---------------------------------------------------------------------------------

    @property
    def draw5(self) -> bool:
        return get_profile(self.rules_version).game == "draw5"

    @property
    def add_now(self) -> bool:
        """ante-nl-1 speaks `hit` and chips-to-add `bet`."""
        return get_profile(self.rules_version).amount_convention == "add_now"

    @property
    def to_call(self) -> int:
        return self.legal.get("call") or 0

    @property
    def pot_odds(self) -> float:
        """The share of the final pot a call pays for."""
        return self.to_call / (self.pot + self.to_call) if self.to_call else 0.0

    @property
    def to_match(self) -> int:
        return self.bet + self.to_call

    @property
    def preflop(self) -> bool:
        return self.street in ("preflop", "predraw")

    @property
    def facing_bet(self) -> bool:
        return self.to_call > 0

    @property
    def spr(self) -> float:
        """Stack to pot: how deep the money behind is."""
        return self.stack / max(self.pot, 1)

    @property
    def in_position(self) -> bool:
        return self.seats_after == 0

    @cached_property
    def all_in_to(self) -> int:
        return self.bet + self.stack

    @property
    def can_raise(self) -> bool:
        return bool(self.legal.get("bet") or self.legal.get("raiseTo"))

    @property
    def raises_this_hand(self) -> int:
        """Opponents who put in more than the unit this street: how much aggression we face."""
        return sum(1 for o in self.opponents if o.bet > max(self.unit, self.bet))

    # --- answers -------------------------------------------------------------------------------

    def check_or_fold(self) -> Action:
        return self.passive() if self.legal.get("check") else {"type": "fold"}

    def passive(self) -> Action:
        """Check when free, else call."""
        if self.add_now:
            return {"type": "hit"}
        if self.legal.get("check"):
            return {"type": "check"}
        if self.legal.get("call") is not None:
            return {"type": "call"}
        return {"type": "fold"}

    def call_or_fold(self, call: bool) -> Action:
        return self.passive() if call or not self.facing_bet else {"type": "fold"}

    def raise_to(self, total: int) -> Action:
        """A bet or raise to `total` chips this street, clamped into the legal bounds (whole bet
        units in fixed limit); an all-in when the total reaches the stack; passive when no
        raise is open."""
        bounds = self.legal.get("bet") or self.legal.get("raiseTo")
        if not bounds:
            if self.legal.get("allIn") is not None and total >= self.all_in_to:
                return {"type": "allIn"}
            return self.passive()
        if self.structure == "fixed-limit":  # whole bet units over the bet to match
            total = self.to_match + max(1, round((total - self.to_match) / self.unit)) * self.unit
        total = max(bounds["min"], min(int(total), bounds["max"]))
        if total >= self.all_in_to and self.legal.get("allIn") is not None:
            return {"type": "allIn"}
        if self.add_now:
            return {"type": "bet", "amount": total - self.bet}
        return {"type": "bet" if self.legal.get("bet") else "raiseTo", "amount": total}

    def pot_bet(self, fraction: float) -> Action:
        """Bet or raise `fraction` of the pot (after calling), within the bounds."""
        return self.raise_to(self.to_match + max(1, round(fraction * (self.pot + self.to_call))))

    def draw(self, discard: tuple[int, ...]) -> Action:
        limit = (self.legal.get("draw") or {}).get("max", 0)
        return {"type": "draw", "cards": [card_str(c) for c in discard[:limit]]}
