"""A Felt hand as a :class:`felt_engine.phh.PhhHand` (the PHH writer's input).

Why here and not in the table service: the forced bets, player order and action
notation are rules knowledge; the table only stores operations and asks for the text.
Players are listed clockwise from the first seat left of the button (the button
last), the PHH convention; ``seats`` keeps Felt's seat numbers in that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from felt_engine import phh
from felt_engine.cards import card_str
from felt_engine.forced import forced_bets
from felt_engine.operations import Operation
from felt_engine.profiles import RulesProfile, Structure, TableStakes, bet_unit, resolve_structure
from felt_engine.state import HandState

__all__ = ["hand_of", "from_state"]


def _actions(operations: Iterable[Operation], idx: Mapping[int, int]) -> list[str]:
    actions: list[str] = []
    draws: list[tuple[int, list[str], list[str]]] = []
    for op in operations:
        cards = [card_str(c) for c in op.cards]
        if op.kind != "draw" and draws:
            actions.extend(phh.draw_round(draws))
            draws.clear()
        if op.kind == "deal_board":
            actions.append(phh.deal_board(cards))
        if op.seat is None:
            continue  # the board, burns, streets, the hand's end: no player's action
        player = idx[op.seat]
        if op.kind == "deal_hole":
            actions.append(phh.deal_hole(player, cards))
        elif op.kind == "fold":
            actions.append(phh.fold(player))
        elif op.kind in ("check", "call"):
            actions.append(phh.check_call(player))
        elif op.kind in ("bet", "raise") and op.to is not None:  # bets and raises always name their total
            actions.append(phh.bet_raise_to(player, op.to))
        elif op.kind == "draw":
            draws.append((player, [card_str(c) for c in op.discarded], cards))
        elif op.kind == "show":
            actions.append(phh.show(player, cards))
    if draws:
        actions.extend(phh.draw_round(draws))
    return actions


def hand_of(
    profile: RulesProfile,
    stakes: TableStakes,
    seats: Sequence[int],
    button: int,
    starting_stacks: Sequence[int],
    final_stacks: Sequence[int],
    operations: Iterable[Operation],
    *,
    players: Mapping[int, str] | None = None,
    extra: Mapping[str, object] | None = None,
) -> phh.PhhHand:
    """The hand as PHH data. ``seats``/stacks in Felt order (ascending seats),
    ``button`` a seat, ``players`` seat -> name (default ``seat<N>``)."""
    n = len(seats)
    b = list(seats).index(button)
    order = [seats[(b + 1 + k) % n] for k in range(n)]
    idx = {s: i for i, s in enumerate(order)}
    structure = resolve_structure(profile, stakes)
    variant, fields = phh.variant_for(profile.game, structure.value)
    antes, blinds = forced_bets(profile, stakes, n)
    fixed = structure is Structure.FIXED_LIMIT
    unit = bet_unit(profile, stakes)
    limits = [spec.limit_units for spec in profile.streets]
    stacks, finals = dict(zip(seats, starting_stacks)), dict(zip(seats, final_stacks))
    names = players or {}
    return phh.PhhHand(
        variant=variant,
        antes=antes,
        blinds=blinds,
        min_bet=None if fixed else unit,
        starting_stacks=[stacks[s] for s in order],
        players=[names.get(s, f"seat{s}") for s in order],
        actions=_actions(operations, idx),
        small_bet=unit * min(limits) if fixed else None,
        big_bet=unit * max(limits) if fixed else None,
        extra={
            **fields,
            "seats": list(order),
            "finishing_stacks": [finals[s] for s in order],
            "_felt_rules_version": profile.rules_version,
            **(extra or {}),
        },
    )


def from_state(
    st: HandState, *, players: Mapping[int, str] | None = None, extra: Mapping[str, object] | None = None
) -> phh.PhhHand:
    """:func:`hand_of` for a (finished) hand state."""
    return hand_of(
        st.profile,
        st.stakes,
        st.seats,
        st.button_seat,
        st.starting_stacks,
        st.stacks,
        st.operations,
        players=players,
        extra=extra,
    )
