"""The fork server the suite starts services with (tests/support/forkserver.py): a child gets
exactly the environment, directory and log it was asked for, and its exit status comes back as
`subprocess.Popen` would give it, whether it exits or is killed."""

import signal
import subprocess
from pathlib import Path

import psutil
import pytest

from tests.support.services import fork_server

PROBE = "tests.support.demo.probe"


def test_a_child_gets_only_its_own_environment_directory_and_log(tmp_path: Path) -> None:
    log = tmp_path / "probe.log"
    child = fork_server().spawn(PROBE, {"PROBE_EXIT": "3", "ONLY_HERE": "x"}, tmp_path, log)
    assert child.wait(30) == 3
    assert log.read_text().split() == [f"cwd={tmp_path}", "env=ONLY_HERE,PROBE_EXIT"]


def test_a_killed_child_reports_the_signal_like_popen(tmp_path: Path) -> None:
    child = fork_server().spawn(PROBE, {"PROBE_SLEEP": "60"}, tmp_path, tmp_path / "probe.log")
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(0.3)
    assert child.poll() is None
    assert psutil.Process(child.pid).name() == PROBE[:15]  # what `ps`, `top` and `pgrep` show
    child.kill()
    assert child.wait(30) == -signal.SIGKILL
    child.kill()  # a process that is gone is not signalled again (its pid may be another's by now)
