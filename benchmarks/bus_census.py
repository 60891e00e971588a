"""What crosses the bus, per subject: messages per second and their mean size, read from a
running room (bench_table, load.py or `make run`) by one subscriber to `>` on its NATS.

    .venv/bin/python benchmarks/bus_census.py nats://127.0.0.1:PORT [--seconds 10] [--hands-per-s H]

Ids in subjects (tables, inboxes) are folded into `*`, so a table's events count as one row.
With `--hands-per-s` (the figure the benchmark printed for the same window) each row also says
how many such messages a hand costs: the budget a cut per hand has to shrink.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from collections import Counter

import nats
from nats.aio.msg import Msg

IDS = re.compile(r"_INBOX\.\S+|[0-9a-f]{16,}|[0-9a-f]{7}-\d+|[A-Za-z0-9]{22}")


def fold(subject: str) -> str:
    return ".".join(IDS.sub("*", subject).split(".")[:5])


async def census(url: str, seconds: float) -> tuple[Counter[str], Counter[str]]:
    counts: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    nc = await nats.connect(url)

    async def seen(msg: Msg) -> None:
        key = fold(msg.subject)
        counts[key] += 1
        sizes[key] += len(msg.data)

    await nc.subscribe(">", cb=seen)
    await asyncio.sleep(seconds)
    await nc.close()
    return counts, sizes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--hands-per-s", type=float, default=0.0)
    args = ap.parse_args()
    counts, sizes = asyncio.run(census(args.url, args.seconds))
    total = sum(counts.values())
    per_hand = args.hands_per_s > 0
    print("| subject | msgs/s | mean bytes |" + (" per hand |" if per_hand else ""))
    print("|---|---:|---:|" + ("---:|" if per_hand else ""))
    for subject, n in counts.most_common(25) + [("all", total)]:
        rate = n / args.seconds
        mean = (sizes[subject] / n) if subject in sizes else sum(sizes.values()) / max(total, 1)
        print(
            f"| `{subject}` | {rate:,.1f} | {mean:,.0f} |" + (f" {rate / args.hands_per_s:.1f} |" if per_hand else "")
        )


if __name__ == "__main__":
    main()
