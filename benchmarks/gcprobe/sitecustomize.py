"""Garbage-collector probe: with this folder on `PYTHONPATH` and `GCPROBE_DIR` set, every Python
process started (a service, the load generator and its workers) writes one line per collection
to `$GCPROBE_DIR/<module>-<pid>.tsv`: unix time, generation, wall ms, CPU ms, objects collected.
Outside the code on purpose: the same probe measures any commit. Read with `gc_summary.py`.

    GCPROBE_DIR=/tmp/gc PYTHONPATH=benchmarks/gcprobe .venv/bin/python benchmarks/load.py --levels 720
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any, TextIO

_DIR = os.environ.get("GCPROBE_DIR")


class _Probe:
    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.out: TextIO | None = None
        self.wall = self.cpu = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.wall, self.cpu = time.perf_counter(), time.process_time()
            return
        if self.out is None:  # opened at the first collection: the module is known by then
            name = next((a for a in sys.orig_argv[1:] if a.startswith("felt_")), None)
            name = name or os.path.basename(sys.argv[0] or "python") or "python"
            self.out = open(os.path.join(self.folder, f"{name}-{os.getpid()}.tsv"), "a", buffering=1)
        wall = (time.perf_counter() - self.wall) * 1000
        cpu = (time.process_time() - self.cpu) * 1000
        self.out.write(f"{time.time():.3f}\t{info['generation']}\t{wall:.2f}\t{cpu:.2f}\t{info['collected']}\n")


if _DIR:
    gc.callbacks.append(_Probe(_DIR))
