"""Equity for Hard: felt_engine.batch.rank_hands vs eval7's compiled evaluator on the same
random 7-card hands, Monte Carlo equity samples per second (6-max, and heads-up next to
eval7's compiled Monte Carlo), and Hard's decision time at 6-max tables.

Run: .venv/bin/python benchmarks/bench_equity.py [--hands N] [--decisions N] [--seed S]
Every side gets its inputs pre-built; only evaluation is timed; best of 3 for throughput.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def decision_times(level: str, version: str, structure: str | None, decisions: int, seed: int) -> list[float]:
    """Seconds per decision of `level` on random 6-max states (random legal play up to a turn)."""
    from felt_bots.levels import LEVELS
    from felt_bots.offline import config_of, view
    from felt_engine import apply
    from felt_engine.testing import default_stakes, new_hand, random_action

    rng = random.Random(seed)
    config = config_of("bench", version, default_stakes(version, small_blind=1, big_blind=2, structure=structure))
    decide, out = LEVELS[level], []
    while len(out) < decisions:
        st = new_hand(
            version,
            {s: rng.randint(100, 400) for s in range(1, 7)},
            seed=rng.getrandbits(32),
            structure=structure,
            small_blind=1,
            big_blind=2,
        )
        for _ in range(rng.randint(0, 10)):
            if st.phase == "over":
                break
            st, _ = apply(st, st.actor_seat, random_action(st, rng))
        if st.phase == "over":
            continue
        v = view(st, st.actor_seat, config)
        t0 = time.perf_counter()
        decide(v, rng)
        out.append(time.perf_counter() - t0)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300_000)
    ap.add_argument("--decisions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    import eval7
    import numpy as np

    from felt_bots.equity import holdem_equity
    from felt_bots.hard import TRIALS
    from felt_engine.batch import rank_hands
    from felt_engine.cards import card_str, parse_cards

    rng = np.random.default_rng(args.seed)
    hands = np.argsort(rng.random((args.hands, 52)), axis=1)[:, :7]
    e7 = [[eval7.Card(card_str(c)) for c in row] for row in hands.tolist()]
    evaluate = eval7.evaluate
    ours = args.hands / best(lambda: rank_hands(hands))
    theirs = args.hands / best(lambda: [evaluate(h) for h in e7])
    print(
        f"python {platform.python_version()} on {platform.machine()}, numpy {np.__version__}, eval7 {getattr(eval7, '__version__', '0.1.11')}"
    )
    print(f"7-card evaluations/s, {args.hands:,} random hands, best of 3")
    print(f"  felt_engine.batch.rank_hands : {ours:12,.0f}")
    print(f"  eval7.evaluate (per hand)    : {theirs:12,.0f}")
    print(f"  ratio felt/eval7             : {ours / theirs:.2f}x")

    hole, board = parse_cards("As Kd"), parse_cards("Qh 7c 2d")
    gen = np.random.default_rng(args.seed)
    trials = 20_000
    six = trials / best(lambda: holdem_equity(hole, board, [0.4] * 5, trials, gen))
    two = trials / best(lambda: holdem_equity(hole, board, [1.0], trials, gen))
    villain = eval7.HandRange("22+, A2+, K2+, Q2+, J2+, T2+, 92+, 82+, 72+, 62+, 52+, 42+, 32")
    e7_hole, e7_board = [eval7.Card(c) for c in ("As", "Kd")], [eval7.Card(c) for c in ("Qh", "7c", "2d")]
    e7_two = trials / best(lambda: eval7.py_hand_vs_range_monte_carlo(e7_hole, villain, e7_board, trials))
    print(f"Monte Carlo equity samples/s (flop, {trials:,} deals)")
    print(f"  felt 6-max (5 ranged opponents, 6 hands per deal) : {six:12,.0f}  ({six * 6:,.0f} hands/s)")
    print(f"  felt heads-up (1 opponent)                        : {two:12,.0f}")
    print(f"  eval7 heads-up hand vs range (compiled)           : {e7_two:12,.0f}")
    print(f"  ratio felt/eval7 heads-up                         : {two / e7_two:.2f}x")

    print(f"Hard decision time at 6-max ({args.decisions} random states each, {TRIALS} deals per equity)")
    for label, version, structure in (("nlhe-1", "nlhe-1", None), ("draw5-1 NL", "draw5-1", "no-limit")):
        t = sorted(decision_times("hard", version, structure, args.decisions, args.seed))
        p95 = t[int(0.95 * (len(t) - 1))]
        print(
            f"  {label:10}: p50 {statistics.median(t) * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  max {t[-1] * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    sys.exit(main())
