"""7-card evaluation speed: felt_engine.evaluator vs treys on the same random hands.

Run: .venv/bin/python benchmarks/bench_evaluator.py [--hands N] [--repeat K] [--seed S]
Both sides get their inputs pre-built (our card ints; treys' card ints in the
(hand, board) lists it expects), so only evaluation is timed. Best of K runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time


def _best_rate(fn, items, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - t0)
    return len(items) / best


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    from felt_engine.evaluator import rank_hand  # builds the lookup tables

    build = time.perf_counter() - t0
    from felt_engine.cards import FULL_DECK, card_str
    from treys import Card, Evaluator

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(FULL_DECK, 7)) for _ in range(args.hands)]
    tc = [Card.new(card_str(c)) for c in FULL_DECK]
    treys_hands = [([tc[c] for c in h[:2]], [tc[c] for c in h[2:]]) for h in hands]
    evaluate = Evaluator().evaluate

    def ours(items):
        for h in items:
            rank_hand(h)

    def theirs(items):
        for hole, board in items:
            evaluate(hole, board)

    r_ours = _best_rate(ours, hands, args.repeat)
    r_treys = _best_rate(theirs, treys_hands, args.repeat)
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{args.hands:,} random 7-card hands (seed {args.seed}), best of {args.repeat}"
    )
    print(f"felt_engine table build at import: {build * 1000:.0f} ms")
    print(f"felt_engine.rank_hand : {r_ours:12,.0f} evals/s  ({1e6 / r_ours:.2f} us/hand)")
    print(f"treys Evaluator       : {r_treys:12,.0f} evals/s  ({1e6 / r_treys:.2f} us/hand)")
    print(f"ratio felt/treys      : {r_ours / r_treys:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
