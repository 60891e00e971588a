"""Forced bets as data: who posts what, in which order, and how PHH lists them.

One place for the rule so that the engine's posting (:func:`posts`) and the hand
history's ``antes`` / ``blinds_or_straddles`` lists (:func:`forced_bets`) can never
disagree. A table picks its forced bets in :class:`~felt_engine.profiles.TableStakes`
among the options its profile allows (``RulesProfile.ante_modes``, ``straddle``):

* ``ante_mode="each"``: every dealt player antes (the Aetolia rules; ante-only games).
* ``ante_mode="big_blind"``: the big blind posts one ante for the whole table
  (big-blind ante); ``"button"``: the button does (button ante). Either is dead
  money: it belongs to the main pot, whoever is still in (TDA).
* ``straddle``: the player left of the big blind posts a live straddle (exactly two
  big blinds, three or more players): preflop action starts left of the straddler,
  the straddler acts last and the minimum raise-to is twice the straddle.

Posting order: every-player antes first (left of the button first), then small
blind, big blind, straddle, then a big-blind or button ante: a short stack covers its
blind before the table's ante (TDA). A stack that cannot cover a forced bet posts
what it has (all-in) under ``short_forced_bet="all_in"``.

PHH lists players from the first seat left of the button (the button last). PokerKit
reads heads-up lists crossed (player i posts entry ``1 - i``), so the big blind's
entry is index 1 and the small blind's index 0 in every player count.
"""

from __future__ import annotations

from typing import NamedTuple

from felt_engine.profiles import RulesProfile, TableStakes

__all__ = ["Post", "posts", "forced_bets", "positions"]


class Post(NamedTuple):
    """One forced bet: player index (Felt order), nominal amount, operation kind,
    detail (``sb``, ``bb``, ``straddle``, ``bb_ante``, ``button_ante`` or "")."""

    i: int
    amount: int
    kind: str
    detail: str

    @property
    def to_bets(self) -> bool:
        """Blinds and straddles are bets on the street; antes are not."""
        return self.kind == "post_blind"

    @property
    def dead(self) -> bool:
        """A table ante (big-blind or button ante): main-pot money."""
        return self.detail in ("bb_ante", "button_ante")


def positions(profile: RulesProfile, stakes: TableStakes, n: int, b: int) -> tuple[int | None, int | None, int | None]:
    """(small blind, big blind, straddler) player indices; None when absent."""
    if not profile.blinds:
        return None, None, None
    sb, bb = (b, (b + 1) % n) if n == 2 else ((b + 1) % n, (b + 2) % n)
    straddler = (bb + 1) % n if stakes.straddle and n >= 3 else None
    return sb, bb, straddler


def posts(profile: RulesProfile, stakes: TableStakes, n: int, b: int) -> list[Post]:
    """Every forced bet of a hand with ``n`` players and the button at index ``b``."""
    sb, bb, straddler = positions(profile, stakes, n, b)
    out: list[Post] = []
    if stakes.ante and stakes.ante_mode == "each":
        out += [Post((b + 1 + k) % n, stakes.ante, "post_ante", "") for k in range(n)]
    if sb is not None and bb is not None:  # positions gives both blinds or neither
        out += [Post(sb, stakes.small_blind, "post_blind", "sb"), Post(bb, stakes.big_blind, "post_blind", "bb")]
    if straddler is not None:
        out.append(Post(straddler, stakes.straddle, "post_blind", "straddle"))
    if stakes.ante and stakes.ante_mode == "big_blind" and bb is not None:  # (validate_stakes: blinds)
        out.append(Post(bb, stakes.ante, "post_ante", "bb_ante"))
    if stakes.ante and stakes.ante_mode == "button":
        out.append(Post(b, stakes.ante, "post_ante", "button_ante"))
    return out


def forced_bets(profile: RulesProfile, stakes: TableStakes, n: int) -> tuple[list[int], list[int]]:
    """PHH ``antes`` and ``blinds_or_straddles`` (player k = k-th seat left of the
    button, button last; heads-up crossed as PokerKit reads it)."""
    antes, blinds = [0] * n, [0] * n
    for p in posts(profile, stakes, n, n - 1):  # button last: index i is PHH player i
        target = blinds if p.to_bets else antes
        target[1 - p.i if n == 2 else p.i] += p.amount
    return antes, blinds
