"""Offline match harness: heads-up duplicate matches between two decision functions.

Every deal is played twice with the seats swapped (the same deck, so each player gets the
other's cards in the mirrored hand): luck of the cards cancels and what is left is skill.
Stacks are reset to `depth` big blinds (or antes) before each hand. The result is the first
player's win rate in bb/100 (big blinds, or antes where there are none, per 100 hands) with a
95% confidence interval over the mirrored pairs.

    python -m felt_bots.harness hard normal --deals 2000 --profile nlhe-1 --seed 1
    python -m felt_bots.harness --all --deals 2000      # every required pairing
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass

from felt_bots.baselines import BASELINES
from felt_bots.levels import LEVELS, Decide
from felt_bots.offline import config_of, engine_action, view
from felt_engine import Deck, apply, get_profile, start_hand
from felt_engine.testing import default_stakes

PLAYERS: dict[str, Decide] = {**LEVELS, **BASELINES}
#: what the levels must show: each beats the one below, and both baselines
REQUIRED = [("hard", "normal"), ("normal", "easy")] + [(level, base) for level in LEVELS for base in BASELINES]
#: profile label -> (rules version, structure)
PROFILES = {
    "nlhe-1": ("nlhe-1", None),
    "plhe-1": ("plhe-1", None),
    "flhe-1": ("flhe-1", None),
    "ante-nl-1": ("ante-nl-1", None),
    "draw5-nl": ("draw5-1", "no-limit"),
    "draw5-pl": ("draw5-1", "pot-limit"),
    "draw5-fl": ("draw5-1", "fixed-limit"),
}


@dataclass(frozen=True)
class Result:
    a: str
    b: str
    profile: str
    hands: int
    bb_per_100: float
    ci95: float  # half-width

    @property
    def significant(self) -> bool:
        return abs(self.bb_per_100) > self.ci95

    def line(self) -> str:
        return (
            f"{self.a:>7} vs {self.b:<7} {self.profile:<9} {self.hands:>6} hands  "
            f"{self.bb_per_100:+8.1f} bb/100  ± {self.ci95:6.1f} (95%)"
        )


def play_hand(
    profile_label: str, players: dict[int, Decide], deck: Deck, button: int, depth: int, rng: random.Random
) -> dict[int, int]:
    """One hand, seat -> chips won (negative: lost). Raises if a player answers illegally."""
    version, structure = PROFILES[profile_label]
    stakes = default_stakes(version, small_blind=1, big_blind=2, structure=structure)
    unit = stakes.big_blind or stakes.ante
    config = config_of("offline", version, stakes, seats=len(players))
    st, _ = start_hand(get_profile(version), stakes, {seat: depth * unit for seat in players}, button, deck)
    while st.phase != "over":
        seat = st.actor_seat
        assert seat is not None
        st, _ = apply(st, seat, engine_action(st, seat, players[seat](view(st, seat, config), rng)))
    return {seat: st.stacks[i] - st.starting_stacks[i] for i, seat in enumerate(st.seats)}


def match(a: str, b: str, deals: int, profile: str = "nlhe-1", seed: int = 0, depth: int = 100) -> Result:
    """`deals` mirrored pairs of hands between players `a` and `b` (names in PLAYERS)."""
    version, structure = PROFILES[profile]
    stakes = default_stakes(version, small_blind=1, big_blind=2, structure=structure)
    unit = stakes.big_blind or stakes.ante
    rng = random.Random(seed)
    pairs = []
    for n in range(deals):
        deck = Deck.shuffled(random.Random(rng.getrandbits(64)))
        button = 1 + n % 2
        first = play_hand(profile, {1: PLAYERS[a], 2: PLAYERS[b]}, deck, button, depth, rng)[1]
        second = play_hand(profile, {1: PLAYERS[b], 2: PLAYERS[a]}, deck, button, depth, rng)[2]
        pairs.append((first + second) / unit)
    mean = sum(pairs) / len(pairs)
    var = sum((x - mean) ** 2 for x in pairs) / max(1, len(pairs) - 1)
    # per pair = 2 hands: bb/100 = mean / 2 * 100
    return Result(a, b, profile, 2 * deals, mean * 50, 1.96 * math.sqrt(var / len(pairs)) * 50)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", nargs="?", choices=sorted(PLAYERS))
    ap.add_argument("b", nargs="?", choices=sorted(PLAYERS))
    ap.add_argument(
        "--all", action="store_true", help="every required pairing (levels in order, each vs both baselines)"
    )
    ap.add_argument("--deals", type=int, default=1000, help="mirrored pairs (2 hands each)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="nlhe-1")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--depth", type=int, default=100, help="stacks in big blinds (antes)")
    args = ap.parse_args(argv)
    if not args.all and not (args.a and args.b):
        ap.error("name two players, or --all")
    failed = 0
    for a, b in REQUIRED if args.all else [(args.a, args.b)]:
        result = match(a, b, args.deals, args.profile, args.seed, args.depth)
        failed += args.all and not (result.significant and result.bb_per_100 > 0)
        print(result.line(), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
