"""Rules profiles as data.

A table names a profile by ``rulesVersion`` plus its stakes; one state machine
(:mod:`felt_engine.hand`) runs every profile. A new variant is a new
:class:`RulesProfile` value, never a fork of the control flow. Every hand records
the ``rules_version`` it started with (``HandState.rules_version``).

Choices documented here (where the seeds leave room):

* Fixed limit: small bet = 1 *bet unit* on the first half of the streets, big bet =
  2 units on the rest (hold'em: unit = big blind, so BB preflop/flop, 2xBB turn/river).
  Draw (the five-card draw rules, "на 1 или 2 анте"): unit = ante, a bet or raise is 1 ante before
  the draw and 1 or 2 antes after it (``limit_min_units=1``). A betting round
  is capped at 1 bet + 3 raises (the big blind counts as the bet preflop); the cap
  also applies heads-up (no uncapped heads-up exception). An all-in for less than a
  full bet/raise is a short raise: it does not count toward the cap nor reopen.
* Minimum bet = 1 bet unit (BB with blinds, the ante in ante-only games: 10 in
  ``ante-nl-1``). Minimum raise-to preflop = 2xBB (the Aetolia rules) falls out of "full raise
  >= last full raise increment" with the BB as the first increment.
* Forced bets a stack cannot cover: ``short_forced_bet="all_in"`` posts what the
  player has (all-in); ``"exclude"`` means the caller must not deal such a player in
  (``ante-nl-1``: below the ante you watch) and :func:`felt_engine.hand.start_hand`
  raises ``ConfigError("short_stack")`` if it does. Use :func:`eligible_stack`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Literal, TypeGuard

from felt_engine.errors import ConfigError

__all__ = [
    "Structure",
    "StreetSpec",
    "RulesProfile",
    "TableStakes",
    "PROFILES",
    "get_profile",
    "validate_stakes",
    "resolve_structure",
    "bet_unit",
    "eligible_stack",
    "HOLDEM_STREETS",
    "DRAW5_STREETS",
    "ANTE_MODES",
]


class Structure(str, Enum):
    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"


@dataclass(frozen=True)
class StreetSpec:
    """One street: what is dealt when it starts, then one betting round.

    ``draw``: before this street's betting, every live hand may discard and draw.
    ``limit_units``: fixed-limit bet size in bet units on this street (the largest);
    ``limit_min_units``: the smallest full bet/raise there (None: ``limit_units``).
    """

    name: str
    hole_cards: int = 0
    board_cards: int = 0
    burn: bool = False
    draw: bool = False
    limit_units: int = 1
    limit_min_units: int | None = None

    @property
    def limit_range(self) -> tuple[int, int]:
        """(smallest, largest) fixed-limit bet/raise in bet units."""
        lo = self.limit_units if self.limit_min_units is None else self.limit_min_units
        return lo, self.limit_units


HOLDEM_STREETS = (
    StreetSpec("preflop", hole_cards=2, limit_units=1),
    StreetSpec("flop", board_cards=3, burn=True, limit_units=1),
    StreetSpec("turn", board_cards=1, burn=True, limit_units=2),
    StreetSpec("river", board_cards=1, burn=True, limit_units=2),
)
HOLDEM_STREETS_NO_BURN = tuple(replace(s, burn=False) for s in HOLDEM_STREETS)
DRAW5_STREETS = (
    StreetSpec("predraw", hole_cards=5, limit_units=1),
    StreetSpec("postdraw", draw=True, limit_units=2, limit_min_units=1),
)


ANTE_MODES = ("each", "big_blind", "button")


@dataclass(frozen=True)
class RulesProfile:
    rules_version: str
    game: Literal["holdem", "draw5"]
    structures: tuple[Structure, ...]  # allowed; the first is the default
    streets: tuple[StreetSpec, ...]
    blinds: bool  # SB/BB posted (False: ante only)
    ante: Literal["optional", "required"]
    fixed_ante: int | None  # ante-nl-1: always 10
    min_seats: int
    max_seats: int
    first_to_act: Literal["blinds", "left_of_dealer"]
    short_forced_bet: Literal["all_in", "exclude"]
    leave_policy: Literal["queue_check_fold", "fold_now"]
    amount_convention: Literal["total", "add_now"]
    money: Literal["buy_in", "balance"]
    buy_in_unit: Literal["big_blind", "ante", "none"]
    min_buy_in_units: int | None  # bounds on configured buy-ins, in buy_in_unit
    max_buy_in_units: int | None
    start: Literal["explicit", "auto"]
    raise_cap: int | None  # fixed limit: bets+raises per round
    preactions: bool = True
    ante_modes: tuple[str, ...] = ("each",)  # allowed TableStakes.ante_mode values
    straddle: bool = False  # may a table have a straddle (felt_engine.forced)
    fixed_turn_seconds: int | None = None  # the rule text fixes the turn clock (no time bank)
    notes: str = field(default="", compare=False)

    @property
    def default_structure(self) -> Structure:
        return self.structures[0]


def _holdem(version: str, structure: Structure, notes: str, fixed_turn_seconds: int | None = None) -> RulesProfile:
    return RulesProfile(
        rules_version=version,
        game="holdem",
        structures=(structure,),
        streets=HOLDEM_STREETS,
        blinds=True,
        ante="optional",
        fixed_ante=None,
        min_seats=2,
        max_seats=9,
        first_to_act="blinds",
        short_forced_bet="all_in",
        leave_policy="queue_check_fold",
        amount_convention="total",
        money="buy_in",
        buy_in_unit="big_blind",
        min_buy_in_units=1,
        max_buy_in_units=None,
        start="explicit",
        raise_cap=4 if structure is Structure.FIXED_LIMIT else None,
        ante_modes=ANTE_MODES,
        straddle=structure is not Structure.FIXED_LIMIT,
        notes=notes,
        fixed_turn_seconds=fixed_turn_seconds,
    )


PROFILES: dict[str, RulesProfile] = {
    p.rules_version: p
    for p in (
        _holdem("nlhe-1", Structure.NO_LIMIT, "the Texas Hold'em, Aetolia and Clawbet rules", fixed_turn_seconds=30),
        _holdem("plhe-1", Structure.POT_LIMIT, "pot limit: max raise-to = pot after the call"),
        _holdem("flhe-1", Structure.FIXED_LIMIT, "fixed limit: BB/2xBB, 1 bet + 3 raises"),
        RulesProfile(
            rules_version="ante-nl-1",
            game="holdem",
            structures=(Structure.NO_LIMIT,),
            streets=HOLDEM_STREETS_NO_BURN,
            blinds=False,
            ante="required",
            fixed_ante=10,
            min_seats=2,
            max_seats=10,
            first_to_act="left_of_dealer",
            short_forced_bet="exclude",
            leave_policy="fold_now",
            amount_convention="add_now",
            money="balance",
            buy_in_unit="none",
            min_buy_in_units=None,
            max_buy_in_units=None,
            start="auto",
            raise_cap=None,
            preactions=False,
            fixed_turn_seconds=30,
            notes="the ante room rules",
        ),
        RulesProfile(
            rules_version="draw5-1",
            game="draw5",
            structures=(Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT),
            streets=DRAW5_STREETS,
            blinds=False,
            ante="required",
            fixed_ante=None,
            min_seats=2,
            max_seats=6,
            first_to_act="left_of_dealer",
            short_forced_bet="all_in",
            leave_policy="queue_check_fold",
            amount_convention="total",
            money="buy_in",
            buy_in_unit="ante",
            min_buy_in_units=1,
            max_buy_in_units=50,
            start="explicit",
            raise_cap=4,
            notes="the five-card draw rules; raise_cap applies to the fixed-limit structure only",
        ),
    )
}


def get_profile(rules_version: str) -> RulesProfile:
    try:
        return PROFILES[rules_version]
    except KeyError:
        raise ConfigError("unknown_rules_version", f"unknown rulesVersion {rules_version!r}") from None


@dataclass(frozen=True)
class TableStakes:
    """A table's money configuration. Buy-ins are None for ``money="balance"``.

    Forced bets (:mod:`felt_engine.forced`): ``ante_mode`` says who pays ``ante``
    (``each`` player, the ``big_blind`` for the table, or the ``button``);
    ``straddle`` is 0 (none) or exactly twice the big blind.
    """

    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    structure: Structure | None = None  # None: the profile's default
    ante_mode: str = "each"
    straddle: int = 0


def resolve_structure(profile: RulesProfile, stakes: TableStakes) -> Structure:
    s = stakes.structure or profile.default_structure
    s = Structure(s)
    if s not in profile.structures:
        raise ConfigError("bad_structure", f"{profile.rules_version} does not allow {s.value}")
    return s


def bet_unit(profile: RulesProfile, stakes: TableStakes) -> int:
    """Minimum bet and first raise increment: the BB with blinds, else the ante."""
    return stakes.big_blind if profile.blinds else stakes.ante


def eligible_stack(profile: RulesProfile, stakes: TableStakes, stack: int) -> bool:
    """May a player with this stack be dealt in? (the caller chooses who is dealt)."""
    if stack <= 0:
        return False
    if profile.short_forced_bet == "exclude":
        return stack >= stakes.ante + (stakes.big_blind if profile.blinds else 0)
    return True


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def validate_stakes(profile: RulesProfile, stakes: TableStakes) -> TableStakes:
    """Raise ``ConfigError("bad_stakes")`` unless the stakes fit the profile."""

    def bad(msg: str, field: str) -> ConfigError:
        return ConfigError("bad_stakes", f"{profile.rules_version}: {msg}", field)

    for name in ("small_blind", "big_blind", "ante", "straddle"):
        v = getattr(stakes, name)
        if not _is_int(v) or v < 0:
            raise bad(f"{name} must be a non-negative integer", name)
    resolve_structure(profile, stakes)
    if profile.blinds:
        if stakes.small_blind <= 0:
            raise bad("need 0 < small_blind <= big_blind", "small_blind")
        if stakes.small_blind > stakes.big_blind:
            raise bad("need 0 < small_blind <= big_blind", "big_blind")
    elif stakes.small_blind or stakes.big_blind:
        raise bad("this profile has no blinds", "small_blind" if stakes.small_blind else "big_blind")
    if stakes.ante_mode not in profile.ante_modes:
        raise bad(f"ante_mode {stakes.ante_mode!r} is not one of {', '.join(profile.ante_modes)}", "ante_mode")
    if stakes.straddle and not profile.straddle:
        raise bad("this profile has no straddle", "straddle")
    if stakes.straddle and stakes.straddle != 2 * stakes.big_blind:
        raise bad("a straddle is twice the big blind", "straddle")
    if profile.ante == "required" and stakes.ante <= 0:
        raise bad("an ante is required", "ante")
    if profile.fixed_ante is not None and stakes.ante != profile.fixed_ante:
        raise bad(f"the ante is fixed at {profile.fixed_ante}", "ante")
    if profile.money == "balance":
        if stakes.min_buy_in is not None or stakes.max_buy_in is not None:
            raise bad("the account balance plays: no buy-in", "min_buy_in" if stakes.min_buy_in else "max_buy_in")
        return stakes
    lo, hi = stakes.min_buy_in, stakes.max_buy_in
    if not (_is_int(lo) and 0 < lo):
        raise bad("need integer 0 < min_buy_in <= max_buy_in", "min_buy_in")
    if not (_is_int(hi) and lo <= hi):
        raise bad("need integer 0 < min_buy_in <= max_buy_in", "max_buy_in")
    unit = stakes.big_blind if profile.buy_in_unit == "big_blind" else stakes.ante
    if profile.min_buy_in_units is not None and lo < profile.min_buy_in_units * unit:
        raise bad(f"min_buy_in below {profile.min_buy_in_units} x {profile.buy_in_unit}", "min_buy_in")
    if profile.max_buy_in_units is not None and hi > profile.max_buy_in_units * unit:
        raise bad(f"max_buy_in above {profile.max_buy_in_units} x {profile.buy_in_unit}", "max_buy_in")
    return stakes
