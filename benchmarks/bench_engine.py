"""Complete random hands per second: felt_engine vs PokerKit, same policy, same run.

Run: .venv/bin/python benchmarks/bench_engine.py [--hands N] [--repeat K] [--seed S]

6-max no-limit hold'em, blinds 10/20, 2,000-chip stacks. Each hand: start, random
legal actions until the hand is over (settled). The same policy drives both engines:
facing a bet fold 15%, otherwise check/call 60%, else bet/raise to a uniform amount
within the legal bounds (all-in if only that is left); the uniform amount comes from
``rng.random()`` (``uniform``), not ``randint``, whose pure-Python rejection sampling
would cost each engine more than a betting step. PokerKit runs with every
non-betting step automated (posting, dealing, burning, showdown, pushing chips).
Ours also builds its immutable state per action (the table's keep-the-old-state
contract) and records every operation. K rounds, each engine once per round (alternating,
so a change in the machine's load hits both); best of K for each, in CPU seconds of this process
(``time.process_time``): on a shared machine wall time mostly measures the neighbours.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

SEATS, SB, BB, STACK = 6, 10, 20, 2000


def uniform(rng: random.Random, lo: int, hi: int) -> int:
    """An integer in ``lo..hi``, each about equally likely (the policy's amounts)."""
    return lo + int(rng.random() * (hi - lo + 1))


def felt_hands(n: int, seed: int) -> int:
    from felt_engine.actions import Action
    from felt_engine.betting import legal_actions_at
    from felt_engine.cards import Deck
    from felt_engine.hand import apply, start_hand
    from felt_engine.profiles import TableStakes, get_profile

    rng = random.Random(seed)
    fold, check, call, all_in = Action.fold(), Action.check(), Action.call(), Action.all_in()
    profile = get_profile("nlhe-1")
    stakes = TableStakes(SB, BB, 0, BB, 1000 * BB)
    stacks = {s: STACK for s in range(SEATS)}
    actions = 0
    for h in range(n):
        st, _ = start_hand(profile, stakes, stacks, h % SEATS, Deck.shuffled(rng))
        while st.phase != "over":
            la = legal_actions_at(st, st.actor)
            r = rng.random()
            if la.call is not None and r < 0.15:
                a = fold
            elif r < 0.75 or (la.bet is None and la.raise_to is None and la.all_in is None):
                a = call if la.call is not None else check
            elif la.bet is not None:
                a = Action("bet", uniform(rng, la.bet.min, la.bet.max))
            elif la.raise_to is not None:
                a = Action("raiseTo", uniform(rng, la.raise_to.min, la.raise_to.max))
            else:
                a = all_in
            st = apply(st, la.seat, a).state
            actions += 1
    return actions


def pokerkit_hands(n: int, seed: int) -> int:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    rng = random.Random(seed)
    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.RUNOUT_COUNT_SELECTION,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    actions = 0
    for _ in range(n):
        st = NoLimitTexasHoldem.create_state(
            automations, True, 0, (SB, BB), BB, (STACK,) * SEATS, SEATS, mode=Mode.CASH_GAME
        )
        while st.status:
            r = rng.random()
            call = st.checking_or_calling_amount
            can_raise = st.can_complete_bet_or_raise_to()
            if call and r < 0.15:
                st.fold()
            elif r < 0.75 or not can_raise:
                st.check_or_call()
            else:
                lo = st.min_completion_betting_or_raising_to_amount
                hi = st.max_completion_betting_or_raising_to_amount
                st.complete_bet_or_raise_to(uniform(rng, lo, hi))
            actions += 1
    return actions


def _timed(fn, n: int, seed: int) -> tuple[float, int]:
    """(hands per CPU second, actions) of one run."""
    t0 = time.process_time()
    acts = fn(n, seed)
    return n / (time.process_time() - t0), acts


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(
        f"python {platform.python_version()} on {platform.machine()}: {args.hands:,} random "
        f"6-max NLHE hands (blinds {SB}/{BB}, stacks {STACK}), best of {args.repeat}, CPU time"
    )
    felt_hands(5, args.seed)  # imports and evaluator tables outside the timing
    try:
        import pokerkit
    except ImportError:
        ours, acts = max(_timed(felt_hands, args.hands, args.seed) for _ in range(args.repeat))
        print(f"felt_engine : {ours:10,.0f} hands/s  ({acts / args.hands:.1f} actions/hand)")
        print("pokerkit    : not installed (pip install pokerkit) - no comparison")
        return
    pokerkit_hands(5, args.seed)
    rounds = []  # the engines alternate, so a change in the machine's load hits both
    for _ in range(args.repeat):
        rounds.append((_timed(felt_hands, args.hands, args.seed), _timed(pokerkit_hands, args.hands, args.seed)))
    (ours, acts), (theirs, pk_acts) = max(r[0] for r in rounds), max(r[1] for r in rounds)
    ratios = sorted(f[0] / p[0] for f, p in rounds)
    print(f"felt_engine : {ours:10,.0f} hands/s  ({acts / args.hands:.1f} actions/hand)")
    print(
        f"pokerkit {getattr(pokerkit, '__version__', '')}: {theirs:10,.0f} hands/s  "
        f"({pk_acts / args.hands:.1f} actions/hand)"
    )
    print(f"ratio felt/pokerkit : {ours / theirs:.1f}x (best of each; per-round {ratios[0]:.1f}-{ratios[-1]:.1f}x)")


if __name__ == "__main__":
    main()
