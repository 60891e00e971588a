"""The compiled engine (tools/compile_engine.py) plays exactly as its sources: the same seeded
hands, operations, views and refusals of bad input, in this process (compiled) and in a
subprocess that imports a copy of the sources without the extensions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import felt_engine.hand
from tests.engine.engine_transcript import lines

ROOT = Path(__file__).resolve().parents[2]
HANDS, SEED = 4, 12


def _pure(tmp_path: Path, *args: str) -> str:
    """Python's output with the engine's sources copied to ``tmp_path`` first on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    run = subprocess.run([sys.executable, *args], env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    return run.stdout


@pytest.mark.skipif(felt_engine.hand.__file__.endswith(".py"), reason="the engine is not compiled (make install)")
def test_the_compiled_engine_plays_as_its_sources(tmp_path: Path) -> None:
    for package in ("felt_engine", "felt_contracts"):
        shutil.copytree(ROOT / "libs" / package, tmp_path / package, ignore=shutil.ignore_patterns("*.so", "*.pyd"))
    assert _pure(tmp_path, "-c", "import felt_engine.hand as h; print(h.__file__)").strip().endswith(".py")
    theirs = _pure(tmp_path, "-m", "tests.engine.engine_transcript", str(HANDS), str(SEED)).splitlines()
    ours = lines(HANDS, SEED)
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert len(ours) == len(theirs) and not differ, f"hands {differ[:5]} of {len(ours)} differ compiled"
