"""`felt_engine replay` on files PokerKit wrote agrees with PokerKit's own replay.

The files are generated here: PokerKit plays random hold'em hands (no-limit and fixed
limit, 2-6 players, blinds, every-player antes, big-blind and button antes, straddles, short
stacks) while Felt's engine plays the same cards in lockstep, and only actions legal
under both rule sets are taken; `HandHistory.from_game_state` writes the file. Where
the rule sets differ on purpose the generator never goes (or drops the hand):

* a short all-in does not reopen the betting in Felt (PokerKit lets players re-raise);
* a short big blind keeps the nominal call in Felt (PokerKit lowers it);
* a short big blind covers the blind before a big-blind ante in Felt (TDA), PokerKit
  posts the ante first;
* after a straddle Felt's minimum raise-to is twice the straddle, PokerKit's less;
* pots split per eligible set in Felt (a tie over dead-blind layers can pay odd chips
  differently; no such hand occurs in these seeds, so every hand must agree exactly).
"""

from __future__ import annotations

import random

import pytest

from felt_engine import Action, TableStakes, apply, get_profile, start_hand
from felt_engine.betting import legal_actions_at
from felt_engine.cards import Deck, card_str
from felt_engine.cli import main
from felt_engine.replay import replay_text

pokerkit = pytest.importorskip("pokerkit")
A = pokerkit.Automation
AUTO = (
    A.ANTE_POSTING,
    A.BET_COLLECTION,
    A.BLIND_OR_STRADDLE_POSTING,
    A.CARD_BURNING,
    A.RUNOUT_COUNT_SELECTION,
    A.HOLE_CARDS_SHOWING_OR_MUCKING,
    A.HAND_KILLING,
    A.CHIPS_PUSHING,
    A.CHIPS_PULLING,
)


def _game(fixed: bool, antes, blinds, bb: int):
    if fixed:
        return pokerkit.FixedLimitTexasHoldem(AUTO, False, antes, blinds, bb, 2 * bb, mode=pokerkit.Mode.CASH_GAME)
    return pokerkit.NoLimitTexasHoldem(AUTO, False, antes, blinds, bb, mode=pokerkit.Mode.CASH_GAME)


def _setup(rng: random.Random):
    n = rng.randint(2, 6)
    fixed = rng.random() < 0.3
    sb, bb = rng.choice([(1, 2), (5, 10), (10, 20)])
    mode = rng.choice(["none", "each", "big_blind", "button"])
    ante = 0 if mode == "none" else rng.choice([1, bb // 2, bb])
    straddle = 2 * bb if not fixed and n >= 3 and rng.random() < 0.25 else 0
    stakes = TableStakes(
        sb,
        bb,
        ante,
        bb,
        10**6,
        "fixed-limit" if fixed else "no-limit",
        ante_mode="each" if mode == "none" else mode,
        straddle=straddle,
    )
    stacks = [rng.choice([rng.randint(3 * bb, 20 * bb), rng.randint(40 * bb, 200 * bb)]) for _ in range(n)]
    return n, fixed, stakes, stacks


def _pokerkit_file(rng: random.Random) -> tuple[str, list[int]] | None:
    """A PokerKit-written PHH text and Felt's lockstep finishing stacks (PHH order),
    or None when the hand left the rules both engines share."""
    from felt_engine.forced import forced_bets

    n, fixed, stakes, stacks = _setup(rng)
    profile = get_profile("flhe-1" if fixed else "nlhe-1")
    antes, blinds = forced_bets(profile, stakes, n)
    game = _game(fixed, antes, blinds, stakes.big_blind)
    pk = game(stacks, n)
    deck = Deck.shuffled(rng)
    seats = list(range(1, n + 1))  # PHH player k = seat k + 1; the button is seat n
    st, _ = start_hand(profile, stakes, dict(zip(seats, stacks)), n, deck)
    if list(pk.stacks) != list(st.stacks) or list(pk.bets) != list(st.bets):
        return None  # short stacks posted differently (forced-bet order)
    for k in range(n):
        pk.deal_hole("".join(card_str(c) for c in st.holes[k]), k)
    while pk.status:
        if pk.can_deal_board():
            pk.deal_board("".join(card_str(c) for c in st.board[len(pk.board_cards) :][: pk.board_dealing_count]))
            continue
        if pk.actor_index is None:
            break
        i = st.actor
        if i is None or pk.actor_index != i:
            return None
        la = legal_actions_at(st, i)
        if la.to_call != pk.checking_or_calling_amount:
            return None  # short big blind: the nominal call differs
        options = ["cc"] + (["f"] if la.call else [])
        rb = la.bet or la.raise_to
        if rb and pk.can_complete_bet_or_raise_to():
            lo = max(rb.min, pk.min_completion_betting_or_raising_to_amount)
            hi = min(rb.max, pk.max_completion_betting_or_raising_to_amount)
            if lo <= hi:
                options += ["raise"] * 2
        elif la.all_in is not None and la.all_in > la.to_call and pk.can_complete_bet_or_raise_to():
            options.append("shove")  # a short all-in raise: legal in both
        choice = rng.choice(options)
        if choice == "f":
            pk.fold()
            action = Action.fold()
        elif choice == "cc":
            pk.check_or_call()
            action = Action.call() if la.call else Action.check()
        elif choice == "shove":
            pk.complete_bet_or_raise_to(la.all_in_to)
            action = Action.all_in()
        else:
            amount = rng.choice([lo, hi]) if fixed else rng.choice([lo, hi, rng.randint(lo, hi)])
            pk.complete_bet_or_raise_to(amount)
            action = Action("bet" if la.bet else "raiseTo", amount)
        st = apply(st, st.seats[i], action).state
    if not st.is_over or pk.status:
        return None
    text = pokerkit.HandHistory.from_game_state(game, pk).dumps()
    return text, list(st.stacks)


def _pokerkit_replay(text: str) -> list[int]:
    hh = pokerkit.HandHistory.loads(text)
    *_, final = iter(hh)
    return list(final.stacks)


@pytest.mark.filterwarnings("ignore:A card being dealt")  # PokerKit's own burns draw from its deck
def test_replay_of_pokerkit_written_files_agrees_with_pokerkit(tmp_path, capsys):
    rng = random.Random(12)
    texts = []
    for _ in range(250):
        made = _pokerkit_file(rng)
        if made is None:
            continue
        text, lockstep = made
        ours = next(replay_text(text))
        assert ours.finishing_stacks == lockstep == _pokerkit_replay(text)
        texts.append(text)
    assert len(texts) >= 200
    # the same files as one .phhs collection, through the command line
    path = tmp_path / "pokerkit.phhs"
    path.write_text("\n\n".join(f"[{k + 1}]\n{t}" for k, t in enumerate(texts)))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(texts)
