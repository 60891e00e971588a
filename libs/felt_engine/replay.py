"""Replay a PHH hand through Felt's engine (``python -m felt_engine replay``).

The file's variant and forced bets choose a profile and table stakes
(``_felt_rules_version`` wins when present); its cards become the deck
(:func:`felt_engine.dealing.deck_for_hand`; ``??`` cards and burns get cards nobody
named, and a hidden hold'em hand takes the cards it shows); then every action is
applied in order with the engine's own checks. The first action the engine refuses
stops the replay with that action's index, text, line and the engine's code.

Felt's rules decide, not the file's: the showdown reveals every live hand (a file
that stops at a contested showdown is completed that way, and a muck there changes
nothing), a short all-in does not reopen the betting, a short big blind keeps the
nominal call, and pots split per set of eligible hands. ``ante_trimming_status`` is
read but Felt always layers every-player antes with the bets and keeps a table ante
(big blind / button) in the main pot.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from felt_engine.actions import Action
from felt_engine.betting import to_match
from felt_engine.cards import Deck, card_str, parse_card
from felt_engine.dealing import deck_for_hand
from felt_engine.errors import ConfigError, IllegalAction
from felt_engine.forced import forced_bets
from felt_engine.hand import apply, show, start_hand
from felt_engine.phh_read import PhhInputError, ReadHand, read_phh
from felt_engine.profiles import (
    ANTE_MODES,
    PROFILES,
    RulesProfile,
    Structure,
    TableStakes,
    bet_unit,
    get_profile,
    validate_stakes,
)
from felt_engine.state import HandState

__all__ = ["Replay", "replay_hand", "replay_text"]

_VARIANTS = {
    "NT": ("holdem", Structure.NO_LIMIT),
    "FT": ("holdem", Structure.FIXED_LIMIT),
    "N5CD": ("draw5", Structure.NO_LIMIT),
    "P5CD": ("draw5", Structure.POT_LIMIT),
    "F5CD": ("draw5", Structure.FIXED_LIMIT),
}
_CARDS = r"(?:[2-9TJQKA?][cdhs?])+"
_ACTION = re.compile(
    rf"d db (?P<board>{_CARDS})|d dh p(?P<dh>\d+) (?P<hole>{_CARDS})"
    rf"|p(?P<p>\d+) (?P<verb>f|cc|cbr|sd|sm)(?: (?P<arg>{_CARDS}|\d+|-))?"
)


@dataclass(frozen=True)
class Replay:
    """A replayed hand; lists in the file's player order."""

    name: str | int | None  # the file's hand name or number
    rules_version: str
    players: list[str]
    seats: list[int]
    finishing_stacks: list[int]
    winnings: list[int]
    file_agrees: bool | None  # the file's finishing_stacks equal ours (None: it has none)
    state: HandState

    def to_dict(self) -> dict[str, object]:
        return {
            "hand": self.name,
            "rules_version": self.rules_version,
            "players": self.players,
            "seats": self.seats,
            "finishing_stacks": self.finishing_stacks,
            "winnings": self.winnings,
            "file_finishing_stacks_agree": self.file_agrees,
        }


# ---- parsing actions ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Act:
    index: int
    verb: str  # dh, db, f, cc, cbr, sd, sm
    player: int | None  # 0-based
    cards: tuple[int | None, ...] = ()
    amount: int | None = None
    muck: bool = False


def _cards(rh: ReadHand, text: str, index: int) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for k in range(0, len(text), 2):
        token = text[k : k + 2]
        if "?" in token:
            out.append(None)
            continue
        try:
            out.append(parse_card(token))
        except ValueError:
            raise rh.error("malformed_cards", f"{token!r} is not a card", index=index) from None
    return tuple(out)


def _parse(rh: ReadHand) -> list[_Act]:
    n = len(rh.hand.starting_stacks)
    acts = []
    for index, raw in enumerate(rh.hand.actions):
        body = raw.partition("#")[0].strip()
        if not body:
            continue
        m = _ACTION.fullmatch(body)
        if m is None:
            if re.fullmatch(r"(?:d d[bh]|p\d+ (?:sd|sm))\b.*", body):
                raise rh.error("malformed_cards", f"bad cards in {raw!r}", index=index)
            raise rh.error("bad_action", f"not a PHH action Felt plays: {raw!r}", index=index)
        player = m["dh"] or m["p"]
        k = int(player) - 1 if player else None
        if k is not None and not 0 <= k < n:
            raise rh.error("bad_action", f"{raw!r} names a player beyond p{n}", index=index)
        if m["board"]:
            acts.append(_Act(index, "db", None, _cards(rh, m["board"], index)))
        elif m["dh"]:
            acts.append(_Act(index, "dh", k, _cards(rh, m["hole"], index)))
        else:
            verb, arg = m["verb"], m["arg"]
            cards_arg = verb in ("sd", "sm") and arg not in (None, "-")
            if (verb == "cbr") != (arg is not None and arg.isdigit()) or (verb in ("f", "cc") and arg):
                raise rh.error("bad_action", f"bad arguments in {raw!r}", index=index)
            if cards_arg and arg.isdigit():
                raise rh.error("malformed_cards", f"bad cards in {raw!r}", index=index)
            acts.append(
                _Act(
                    index,
                    verb,
                    k,
                    _cards(rh, arg, index) if cards_arg else (),
                    int(arg) if verb == "cbr" else None,
                    muck=verb == "sm" and arg is None,
                )
            )
    return acts


# ---- rules and stakes from the file ---------------------------------------------------------


def _profile(rh: ReadHand) -> tuple[RulesProfile, Structure]:
    h = rh.hand
    if h.variant not in _VARIANTS:
        raise rh.error("unknown_variant", f"Felt plays {', '.join(_VARIANTS)}, not {h.variant!r}", "variant")
    game, structure = _VARIANTS[h.variant]
    if h.extra.get("_felt_betting") == "pot-limit" and h.variant == "NT":
        structure = Structure.POT_LIMIT
    version = h.extra.get("_felt_rules_version", h.extra.get("_felt_rulesVersion"))
    if version is not None:
        try:
            profile = get_profile(str(version))
        except ConfigError as e:
            raise rh.error(e.code, e.message, "_felt_rules_version") from None
    elif game == "draw5":
        profile = PROFILES["draw5-1"]
    elif any(h.blinds):
        profile = PROFILES[
            {Structure.NO_LIMIT: "nlhe-1", Structure.POT_LIMIT: "plhe-1", Structure.FIXED_LIMIT: "flhe-1"}[structure]
        ]
    else:
        profile = PROFILES["ante-nl-1"]  # the ante-only hold'em profile
    if profile.game != game or structure not in profile.structures:
        raise rh.error("unsupported", f"{profile.rules_version} is not {h.variant}", "variant")
    return profile, structure


def _stakes(rh: ReadHand, profile: RulesProfile, structure: Structure) -> TableStakes:
    h = rh.hand
    n = len(h.starting_stacks)
    sb, bb = (h.blinds[0], h.blinds[1]) if profile.blinds else (0, 0)
    straddle = h.blinds[2] if profile.blinds and n >= 3 else 0
    paid = sorted({a for a in h.antes if a})
    candidates = (
        [
            TableStakes(sb, bb, paid[0] if paid else 0, structure=structure, ante_mode=mode, straddle=straddle)
            for mode in ANTE_MODES
        ]
        if len(paid) <= 1
        else []
    )
    stakes = next((s for s in candidates if forced_bets(profile, s, n) == (h.antes, h.blinds)), None)
    if stakes is None:
        raise rh.error(
            "unsupported",
            f"antes {h.antes} and blinds {h.blinds} are not forced bets of a {profile.rules_version} table",
            "blinds_or_straddles",
        )
    unit = stakes.big_blind if profile.buy_in_unit == "big_blind" else stakes.ante
    if profile.money == "buy_in":  # buy-ins do not matter to a replay; any valid pair
        stakes = TableStakes(
            stakes.small_blind,
            stakes.big_blind,
            stakes.ante,
            unit * (profile.min_buy_in_units or 1),
            unit * (profile.max_buy_in_units or 10**6),
            structure,
            stakes.ante_mode,
            stakes.straddle,
        )
    try:
        validate_stakes(profile, stakes)
    except ConfigError as e:
        raise rh.error(e.code, e.message, "blinds_or_straddles") from None
    bet = bet_unit(profile, stakes)
    if structure is Structure.FIXED_LIMIT:
        units = [s.limit_units for s in profile.streets]
        if (h.small_bet, h.big_bet) != (bet * min(units), bet * max(units)) or h.min_bet is not None:
            raise rh.error(
                "unsupported", f"{profile.rules_version} bets {bet * min(units)}/{bet * max(units)}", "small_bet"
            )
    elif h.min_bet != bet or h.small_bet is not None or h.big_bet is not None:
        raise rh.error(
            "unsupported",
            f"{profile.rules_version}'s minimum bet is {bet}, the file says min_bet = {h.min_bet}",
            "min_bet",
        )
    return stakes


def _seat_order(rh: ReadHand) -> list[int]:
    """Felt seat of each PHH player: the file's ``seats`` when they run clockwise
    (ascending from left of the button), else 1..n with the button last."""
    n = len(rh.hand.starting_stacks)
    seats = rh.hand.extra.get("seats")
    if isinstance(seats, list) and len(seats) == n and all(type(s) is int for s in seats) and len(set(seats)) == n:
        ascending = sorted(seats)
        start = ascending.index(seats[0])
        if ascending[start:] + ascending[:start] == seats:
            return list(seats)
    return list(range(1, n + 1))


# ---- the deck ------------------------------------------------------------------------------


def _deck(rh: ReadHand, profile: RulesProfile, acts: list[_Act]) -> Deck:
    n = len(rh.hand.starting_stacks)
    size = profile.streets[0].hole_cards
    holes: list[list[int | None] | None] = [None] * n
    board: list[int | None] = []
    draws: dict[int, tuple[int | None, ...]] = {}
    pending: dict[int, int] = {}  # player -> discards awaiting replacements
    order: list[int] = []  # players in drawing order
    discarded: dict[int, int] = {}
    shows: list[_Act] = []
    named: set[int] = set()

    def name(cards: Iterable[int | None], act: _Act) -> None:
        for c in cards:
            if c is not None:
                if c in named:
                    raise rh.error("duplicate_card", f"{card_str(c)} is dealt twice", index=act.index)
                named.add(c)

    for act in acts:
        if act.verb == "db":
            name(act.cards, act)
            board.extend(act.cards)
            continue
        k = act.player
        assert k is not None  # every action but a board deal names its player (_parse)
        if act.verb == "dh" and holes[k] is None:
            if len(act.cards) != size:
                raise rh.error(
                    "bad_action",
                    f"{profile.rules_version} deals {size} hole cards, not {len(act.cards)}",
                    index=act.index,
                )
            name(act.cards, act)
            holes[k] = list(act.cards)
        elif act.verb == "dh":
            if pending.get(k) != len(act.cards):
                raise rh.error("out_of_turn", "replacement cards must follow the player's discard", index=act.index)
            name(act.cards, act)
            draws[k] = act.cards
            del pending[k]
        elif act.verb == "sd":
            pending[k] = discarded[k] = len(act.cards)
            order.append(k)
        elif act.verb == "sm" and act.cards and None not in act.cards:
            shows.append(act)
    for act in shows:  # a hidden hand takes the cards it shows
        k = act.player
        assert k is not None  # a show names its player
        hole = holes[k]
        if hole is not None and None not in hole:
            continue  # known: the replay checks the show
        drew = discarded.get(k, 0)
        if profile.game == "holdem" and hole is not None and any(c is not None and c not in act.cards for c in hole):
            raise rh.error("card_mismatch", "shown cards differ from the dealt ones", index=act.index)
        if drew and any(c is not None for c in draws.get(k, ())):
            continue  # partly known draws: nothing sure to fill
        name((c for c in act.cards if hole is None or c not in hole), act)
        kept = size - drew  # draw: the shown hand = kept cards + replacements
        holes[k] = list(act.cards[:kept]) + [None] * drew
        if drew:
            draws[k] = tuple(act.cards[kept:])
    replacements = [c for k in order for c in draws.get(k, (None,) * discarded.get(k, 0))]
    try:
        return deck_for_hand(profile, [h or [None] * size for h in holes], board, replacements)
    except ValueError as e:
        raise rh.error("unsupported", str(e), "actions") from None


# ---- replay -----------------------------------------------------------------------------


def _step(rh: ReadHand, st: HandState, act: _Act, seat: int) -> HandState:
    i = st.seats.index(seat)
    if act.verb in ("f", "cc", "cbr"):
        if act.verb == "f":
            action = Action.fold()
        elif act.verb == "cc":
            action = Action.check() if st.phase == "betting" and st.bets[i] >= to_match(st) else Action.call()
        else:
            action = Action("bet" if to_match(st) == 0 else "raiseTo", act.amount)
        return apply(st, seat, action).state
    if act.verb == "sd":
        hand = list(st.holes[i]) if st.phase == "draw" else []
        known = [c for c in act.cards if c is not None]
        # unknown discards: from the end of the hand, where a hidden hand's unnamed cards are
        unknown = [c for c in reversed(hand) if c not in known][: len(act.cards) - len(known)]
        return apply(st, seat, Action.draw(known + unknown)).state
    if not st.is_over:
        raise IllegalAction(
            "cannot_show", "cards are shown once the hand is over (Felt reveals every live hand at showdown)"
        )
    if act.muck:
        return st
    shown = st.shown[i]
    if shown is None:
        st = show(st, seat).state
        shown = st.holes[i]  # what show reveals
    if any(c is not None and c not in shown for c in act.cards):
        raise rh.error("card_mismatch", "shown cards differ from the dealt ones", index=act.index)
    return st


def _check_dealt(rh: ReadHand, st: HandState, act: _Act, seat: int | None, board_seen: int) -> int:
    """Cards the file deals must be the ones the engine dealt; returns board_seen."""
    if act.verb == "db":
        board_seen += len(act.cards)
        if len(st.board) < board_seen:
            raise rh.error("out_of_turn", "the board is dealt when the betting round closes", index=act.index)
        dealt = st.board[board_seen - len(act.cards) : board_seen]
    else:
        assert seat is not None  # hole cards name their player
        dealt = st.holes[st.seats.index(seat)]
    if any(c is not None and c not in dealt for c in act.cards):
        raise rh.error("card_mismatch", "these are not the cards the engine dealt", index=act.index)
    return board_seen


def replay_hand(rh: ReadHand) -> Replay:
    """Replay one hand; raises :class:`PhhInputError` at the first problem."""
    profile, structure = _profile(rh)
    stakes = _stakes(rh, profile, structure)
    acts = _parse(rh)
    deck = _deck(rh, profile, acts)
    order = _seat_order(rh)
    h = rh.hand
    try:
        st, _ = start_hand(
            profile,
            stakes,
            dict(zip(order, h.starting_stacks)),
            order[-1],
            deck,
            hand_id=None if rh.name is None else str(rh.name),
        )
    except ConfigError as e:
        raise rh.error(e.code, e.message, "starting_stacks") from None
    board_seen = 0
    for act in acts:
        seat = order[act.player] if act.player is not None else None
        try:
            if act.verb in ("dh", "db"):
                board_seen = _check_dealt(rh, st, act, seat, board_seen)
            else:
                assert seat is not None  # only board deals name no player
                st = _step(rh, st, act, seat)
        except IllegalAction as e:
            raise rh.error(e.code, e.message, index=act.index) from None
    if not st.is_over:
        who = f"p{order.index(st.actor_seat) + 1}" if st.actor_seat is not None else "nobody"
        last = acts[-1].index if acts else None
        raise (
            rh.error("hand_incomplete", f"the actions stop while {who} is to act", index=last)
            if last is not None
            else rh.error("hand_incomplete", "no actions", "actions")
        )
    idx = [st.seats.index(s) for s in order]
    finals = [st.stacks[i] for i in idx]
    expected = h.extra.get("finishing_stacks")
    payouts = st.payouts
    assert payouts is not None  # the hand is over
    number = h.extra.get("hand")
    return Replay(
        name=rh.name if rh.name is not None else number if isinstance(number, (str, int)) else None,
        rules_version=profile.rules_version,
        players=h.players or [f"p{k + 1}" for k in range(len(order))],
        seats=order,
        finishing_stacks=finals,
        winnings=[payouts[i] for i in idx],
        file_agrees=None if expected is None else expected == finals,
        state=st,
    )


def replay_text(text: str) -> Iterator[Replay]:
    """Replay every hand of a ``.phh``/``.phhs`` text, in file order."""
    for rh in read_phh(text):
        try:
            yield replay_hand(rh)
        except PhhInputError as e:
            e.hand = rh.name
            raise
