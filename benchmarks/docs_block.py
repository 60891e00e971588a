"""The block a benchmark keeps in docs/benchmarks.md: its latest table, between two marker comments
named for it (`<!-- bench_table -->` … `<!-- /bench_table -->`), so the hand-written text around the
block (what the benchmark measures, other runs) stays as it is. Each block says when and where it
was measured and the command that produced it, as every table of that page does."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def machine() -> str:
    """The cores and CPU model the run had (the engine's speed, printed beside it, says how fast)."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} cores" + (f" ({model})" if model else "")


def stamp(command: str) -> str:
    """`Measured <date> UTC on <machine>, load average <l>; command `<command>`.`"""
    load = os.getloadavg()[0]
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    return f"Measured {now} UTC on {machine()}, load average {load:.1f}; command `{command}`."


def write(name: str, text: str) -> None:
    """Replace the block `name` of the page with `text`; a page without the block is left alone."""
    page = PAGE.read_text()
    start, end = f"<!-- {name} -->\n", f"<!-- /{name} -->"
    i, j = page.find(start), page.find(end)
    if i < 0 or j < i:
        sys.exit(f"docs/benchmarks.md has no {start.strip()} … {end} block; not written")
    PAGE.write_text(page[: i + len(start)] + text.rstrip("\n") + "\n" + page[j:])
