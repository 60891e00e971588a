"""`felt migrate` (every Kubernetes pod's init step) and `felt migrate --wait` on a real, empty
database; pods rolled out together migrate in turn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FELT = str(Path(sys.executable).parent / "felt")


def _felt(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FELT_")}
    env["FELT_DATABASE_URL"] = database_url
    return subprocess.run([FELT, "migrate", *args], env=env, capture_output=True, text=True, timeout=120)


def test_pods_that_start_together_migrate_in_turn(database_url: str) -> None:
    """Three `felt migrate` at once on one empty PostgreSQL database (a rollout's pods): every one
    succeeds and the schema is at the newest revision."""
    if database_url.startswith("sqlite"):
        pytest.skip("a SQLite file is one process's: pods share PostgreSQL")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FELT_")}
    env["FELT_DATABASE_URL"] = database_url
    runs = [
        subprocess.Popen([FELT, "migrate"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outcomes = [(run.wait(180), run.stderr.read() if run.stderr else "") for run in runs]
    assert [code for code, _ in outcomes] == [0, 0, 0], outcomes
    assert _felt(database_url, "--wait", "--timeout", "1").returncode == 0


def test_wait_holds_until_the_job_has_migrated_every_schema(database_url: str) -> None:
    before = _felt(database_url, "--wait", "--timeout", "1")
    assert before.returncode == 1 and "still due" in before.stderr
    for name in ("wallet", "limits", "table", "gateway"):
        assert name in before.stderr
    job = _felt(database_url)
    assert job.returncode == 0, job.stderr
    assert _felt(database_url, "--wait", "--timeout", "1").returncode == 0
    assert _felt(database_url).returncode == 0  # a second Job run is a no-op
