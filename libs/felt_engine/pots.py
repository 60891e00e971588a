"""Pots and settlement: a pure function over integer chips.

Why layers: every distinct contribution level opens a new layer (the ante room rules), so an
all-in hand can only win, from each opponent, what it put in itself; folded chips
stay in the layers they reached, but only live hands win.

Why pots are not layers: a pot is defined by the set of live hands eligible for it
(TDA), so adjacent layers with the same eligible set are one pot, and a tie and its
odd chips are decided once per pot. Dead money from folded blinds makes extra layers
under the live hands' level; splitting those layers one by one would pay a three-way
tie of 21 chips 8/7/6 instead of 7/7/7.

Dead money (a big-blind or button ante, paid for the whole table) is no layer: it
belongs to the main pot, open to every live hand, and joins the first pot when that
pot has the same eligible set.

Two house rules keep chips from being destroyed: a layer only one seat reached is
returned to it ("uncalled"), and a layer no live hand reached is refunded to the
seats that built it ("refund"); neither is merged into a pot.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Literal, NamedTuple, TypeGuard

__all__ = ["Award", "Pot", "PotError", "Settlement", "build_pots", "settle"]

Reason = Literal["win", "split", "uncalled", "refund"]


class PotError(ValueError):
    """Inputs that cannot describe a real hand (a caller bug, never a player error)."""


class Pot(NamedTuple):
    """One pot (or an uncalled/refunded layer); `eligible` = live contributors (may
    be empty); `contributors` = every seat that put chips in it. (Named tuples here:
    one settlement per hand, on the engine's hot path.)"""

    amount: int
    contributors: tuple[int, ...]
    eligible: tuple[int, ...]
    dead: bool = False  # only dead money: won by the live hands whoever paid it


class Award(NamedTuple):
    pot_index: int
    seat: int
    amount: int
    reason: Reason


class Settlement(NamedTuple):
    """`payouts` has every seat of `contributions` (0 when it received nothing)."""

    pots: tuple[Pot, ...]
    awards: tuple[Award, ...]
    payouts: dict[int, int]


def _is_int(x: object) -> TypeGuard[int]:
    return type(x) is int  # bool is not a chip count


def _check_contributions(contributions: Mapping[int, int], live: Collection[int]) -> frozenset[int]:
    # object, not int: compiled (docs/development.md), a typed loop variable would refuse a
    # float with a TypeError before this check could say which seat is wrong
    pairs: Iterable[tuple[object, object]] = contributions.items()
    for seat, amount in pairs:
        if not _is_int(seat):
            raise PotError(f"seat {seat!r} is not an int")
        if not _is_int(amount):
            raise PotError(f"contribution of seat {seat} is not an int: {amount!r}")
        if amount < 0:
            raise PotError(f"negative contribution {amount} for seat {seat}")
    live_set = frozenset(live)
    if len(live_set) != len(list(live)):
        raise PotError(f"duplicate seats in live: {list(live)!r}")
    unknown = live_set.difference(contributions)  # `-` with a keys view makes a set, not a frozenset
    if unknown:
        raise PotError(f"live seats {sorted(unknown)} are not in contributions")
    return live_set


def _contested(pot: Pot) -> bool:
    return (pot.dead or len(pot.contributors) > 1) and bool(pot.eligible)


def _dead_money(contributions: Mapping[int, int], dead: Mapping[int, int] | None) -> dict[int, int]:
    dead = dict(dead or {})
    pairs: Iterable[tuple[int, object]] = dead.items()  # see _check_contributions
    for seat, amount in pairs:
        if not _is_int(amount) or not 0 <= amount <= contributions.get(seat, -1):
            raise PotError(f"dead money {amount!r} of seat {seat} is not part of its contribution")
    return {s: a for s, a in dead.items() if a}


def build_pots(
    contributions: Mapping[int, int], live: Collection[int], dead: Mapping[int, int] | None = None
) -> tuple[Pot, ...]:
    """Pots from the lowest contribution level up; seat tuples are sorted.

    ``dead``: the part of a seat's contribution that is dead money (main pot). One
    layer per distinct level of the rest; a contested layer whose eligible set
    equals the pot below joins that pot."""
    live_set = _check_contributions(contributions, live)
    return _build(contributions, live_set, _dead_money(contributions, dead))


def _build(contributions: Mapping[int, int], live_set: frozenset[int], dead: dict[int, int]) -> tuple[Pot, ...]:
    pots: list[Pot] = []
    if dead:
        pots.append(Pot(sum(dead.values()), tuple(sorted(dead)), tuple(sorted(live_set)), dead=True))
    layered = {s: a - dead.get(s, 0) for s, a in contributions.items()} if dead else contributions
    previous = 0
    seats = sorted(s for s, a in layered.items() if a > 0)
    for level in sorted({layered[s] for s in seats}):
        contributors = tuple(s for s in seats if layered[s] >= level)
        eligible = tuple(s for s in contributors if s in live_set)
        layer = Pot((level - previous) * len(contributors), contributors, eligible)
        below = pots[-1] if pots else None
        if below is not None and _contested(layer) and _contested(below) and below.eligible == eligible:
            # a layer's contributors are a subset of the layer below (not of the dead money)
            merged = tuple(sorted(set(below.contributors) | set(contributors))) if below.dead else below.contributors
            pots[-1] = Pot(below.amount + layer.amount, merged, eligible)
        else:
            pots.append(layer)
        previous = level
    return tuple(pots)


def _split(pot_index: int, amount: int, winners: list[int], reason: Reason) -> list[Award]:
    """Even shares; the odd chips go one at a time to `winners` in the given order."""
    share, odd = divmod(amount, len(winners))
    return [Award(pot_index, seat, share + 1 if i < odd else share, reason) for i, seat in enumerate(winners)]


def settle(
    contributions: Mapping[int, int],
    live: Collection[int],
    strength: Mapping[int, int] | None,
    clockwise_from_button: Sequence[int],
    dead: Mapping[int, int] | None = None,
) -> Settlement:
    """Award every pot. `strength` is None when the hand ended without showdown;
    `dead`: seat -> dead money within its contribution (see :func:`build_pots`).

    `clockwise_from_button` lists seats clockwise starting with the first seat left
    of the button; it must hold every contributing seat (it fixes odd-chip order).
    Strengths of folded seats are ignored.
    """
    live_set = _check_contributions(contributions, live)
    dead = _dead_money(contributions, dead)
    pots = _build(contributions, live_set, dead)
    position = {seat: i for i, seat in enumerate(clockwise_from_button)}
    if len(position) != len(clockwise_from_button):
        raise PotError(f"duplicate seats in clockwise_from_button: {list(clockwise_from_button)!r}")
    missing = contributions.keys() - position.keys()
    if missing:
        raise PotError(f"seats {sorted(missing)} missing from clockwise_from_button")
    if strength is None:
        if len(live_set) > 1:
            raise PotError(f"strength is required when {len(live_set)} hands are live")
        strength = {}
    else:
        unknown = strength.keys() - contributions.keys()
        if unknown:
            raise PotError(f"strength given for unknown seats {sorted(unknown)}")
        without = live_set.difference(strength)
        if without:
            raise PotError(f"live seats {sorted(without)} have no strength")
        for seat in live_set:
            if not _is_int(strength[seat]):
                raise PotError(f"strength of seat {seat} is not an int: {strength[seat]!r}")

    return _award(pots, dead, strength, position, contributions)


def settle_trusted(
    contributions: Mapping[int, int],
    live: Collection[int],
    strength: Mapping[int, int] | None,
    clockwise_from_button: Sequence[int],
    dead: Mapping[int, int],
) -> Settlement:
    """:func:`settle` without checking its inputs: for the engine, whose inputs are
    consistent by construction (integer chips of its own seats, every live hand ranked);
    checking them is a quarter of settling a hand."""
    dead = {s: a for s, a in dead.items() if a} if dead else {}
    pots = _build(contributions, frozenset(live), dead)
    position = {seat: i for i, seat in enumerate(clockwise_from_button)}
    return _award(pots, dead, strength or {}, position, contributions)


def _award(
    pots: tuple[Pot, ...],
    dead: Mapping[int, int],
    strength: Mapping[int, int],
    position: Mapping[int, int],
    seats: Iterable[int],
) -> Settlement:
    """Each pot to its best eligible hand (odd chips clockwise from the button);
    ``seats``: the keys of the payouts (every contributing seat)."""
    awards: list[Award] = []
    for index, pot in enumerate(pots):
        if len(pot.contributors) == 1 and not pot.dead:
            awards.append(Award(index, pot.contributors[0], pot.amount, "uncalled"))
        elif pot.dead and not pot.eligible:  # an abandoned hand: each payer gets its own back
            awards.extend(Award(index, seat, dead[seat], "refund") for seat in pot.contributors)
        elif not pot.eligible:
            awards.extend(_split(index, pot.amount, list(pot.contributors), "refund"))
        elif len(pot.eligible) == 1:
            awards.append(Award(index, pot.eligible[0], pot.amount, "win"))
        else:
            best = max(strength[s] for s in pot.eligible)
            winners = sorted((s for s in pot.eligible if strength[s] == best), key=position.__getitem__)
            awards.extend(_split(index, pot.amount, winners, "win" if len(winners) == 1 else "split"))
    payouts = dict.fromkeys(seats, 0)
    for award in awards:
        payouts[award.seat] += award.amount
    return Settlement(pots, tuple(awards), payouts)
