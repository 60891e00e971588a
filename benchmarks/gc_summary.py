"""What the garbage collector cost each process, from the files of `gcprobe/sitecustomize.py`.

    .venv/bin/python benchmarks/gc_summary.py /tmp/gc [--after 15]

Per process: collections, their CPU, the longest pause, and the full (generation 2) collections
more than `--after` seconds after its first collection (start-up's own are not the load's).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def summary(path: Path, after: float) -> str:
    rows = [line.split("\t") for line in path.read_text().splitlines() if line]
    if not rows:
        return f"{path.stem}: no collections"
    t0 = float(rows[0][0])
    cpu = sum(float(r[3]) for r in rows)
    longest = max(float(r[2]) for r in rows)
    late_full = [r for r in rows if r[1] == "2" and float(r[0]) - t0 > after]
    late = ", ".join(f"{float(r[2]):.0f}" for r in late_full)
    return (
        f"{path.stem}: {len(rows)} collections, {cpu / 1000:.2f} s CPU, longest {longest:.0f} ms wall;"
        f" full after {after:.0f} s: {len(late_full)}" + (f" ({late} ms wall)" if late else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--after", type=float, default=15.0, help="seconds of start-up to leave out of 'full'")
    args = parser.parse_args()
    for path in sorted(args.folder.glob("*.tsv")):
        print(summary(path, args.after))


if __name__ == "__main__":
    main()
