"""`felt migrate` (the Kubernetes migration Job) and `felt migrate --wait` (the services' init
container) on a real, empty database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FELT = str(Path(sys.executable).parent / "felt")


def _felt(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FELT_")}
    env["FELT_DATABASE_URL"] = database_url
    return subprocess.run([FELT, "migrate", *args], env=env, capture_output=True, text=True, timeout=120)


def test_wait_holds_until_the_job_has_migrated_every_schema(database_url: str) -> None:
    before = _felt(database_url, "--wait", "--timeout", "1")
    assert before.returncode == 1 and "still due" in before.stderr
    for name in ("wallet", "limits", "table", "gateway"):
        assert name in before.stderr
    job = _felt(database_url)
    assert job.returncode == 0, job.stderr
    assert _felt(database_url, "--wait", "--timeout", "1").returncode == 0
    assert _felt(database_url).returncode == 0  # a second Job run is a no-op
