"""Start service processes by forking a process that has already imported them.

A service's imports cost 1.3-2.4 s of CPU (SQLAlchemy, alembic, FastStream and nats-py, the
evaluator's tables) and the suite starts about 300 services, so a third of its time went to
importing the same modules again. The fork server imports every service once; each start is a
`fork()` of it that runs `python -m <module>`'s code as a fresh interpreter would (`runpy`,
`__main__`), with its own environment, working directory and log. The children are real
processes of their own: tests signal, kill -9 and restart them as before, and a child's exit
status comes back through a file the server writes when it reaps it (the test process is not
its parent, so it cannot wait for it).

Run as `python -m tests.support.forkserver DIR`: one request a line on stdin (JSON: module,
env, cwd, log); on stdout `"ready"` once every service is imported, then the child's pid and its
exit-file name a line per request.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class ForkedProcess:
    """The part of `subprocess.Popen` the tests use, for a process the fork server started."""

    pid: int
    exit_file: Path
    args: str = ""
    returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self.exit_file.exists():
            self.returncode = int(self.exit_file.read_text())
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ForkServer:
    """One fork server per test process, started on first use."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.server = subprocess.Popen(
            [sys.executable, "-m", "tests.support.forkserver", str(workdir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(workdir / "forkserver.log").open("ab"),
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
            cwd=Path(__file__).resolve().parents[2],  # where `tests` is a package
            text=True,
        )
        self._answer()  # "ready": every service imported

    def _answer(self) -> Any:
        assert self.server.stdout is not None
        line = self.server.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server exited:\n{(self.workdir / 'forkserver.log').read_text()[-3000:]}")
        return json.loads(line)

    def spawn(self, module: str, env: dict[str, str], cwd: Path, log: Path) -> ForkedProcess:
        request = {"module": module, "env": env, "cwd": str(cwd), "log": str(log)}
        with self.lock:
            assert self.server.stdin is not None
            self.server.stdin.write(json.dumps(request) + "\n")
            self.server.stdin.flush()
            pid, exit_file = self._answer()
        return ForkedProcess(pid, Path(exit_file), args=module)

    def close(self) -> None:
        """Stop the server (its children live on until their tests stop them) and drop its files."""
        if self.server.stdin is not None:
            self.server.stdin.close()
        self.server.wait(10)
        shutil.rmtree(self.workdir, ignore_errors=True)


def _run_child(request: dict[str, str]) -> None:
    """In the forked child: become `python -m <module>` (never returns)."""
    import runpy

    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(null)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    with contextlib.suppress(OSError):  # Linux: `ps -o comm`, `top` and `pgrep felt_` show the service
        Path("/proc/self/comm").write_text(request["module"][:15])
    sys.argv = [request["module"]]
    runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    sys.exit(0)


def _serve(workdir: Path) -> None:
    import importlib

    from felt_runtime import catalog

    for name in catalog.installed():
        importlib.import_module(f"felt_{name}.app")
    sys.stdout.write(json.dumps("ready") + "\n")
    sys.stdout.flush()
    exit_files: dict[int, Path] = {}

    def reap(_signum: int, _frame: object) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            path = exit_files.pop(pid, None)
            if path is not None:
                tmp = path.with_suffix(".tmp")
                tmp.write_text(str(os.waitstatus_to_exitcode(status)))
                tmp.rename(path)

    signal.signal(signal.SIGCHLD, reap)
    for n, line in enumerate(sys.stdin):
        request = json.loads(line)
        exit_file = workdir / f"child-{os.getpid()}-{n}.exit"
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            _run_child(request)
        exit_files[pid] = exit_file
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        sys.stdout.write(json.dumps([pid, str(exit_file)]) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve(Path(sys.argv[1]))
