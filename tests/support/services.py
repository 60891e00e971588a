"""Start Felt services as real processes against the test servers, wait for health,
and tear them down. End-to-end and crash tests use this. Each is `python -m felt_<name>` forked
from a process that has imported the services already (tests/support/forkserver.py)."""

from __future__ import annotations

import atexit
import functools
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

from felt_runtime import infra
from tests.support.forkserver import ForkedProcess, ForkServer
from tests.support.servers import identity_env

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def fork_server() -> ForkServer:
    """This test process's fork server (tests/support/forkserver.py), started on first use."""
    server = ForkServer(Path(tempfile.mkdtemp(prefix="felt-forkserver-")))
    atexit.register(server.close)
    return server


@dataclass
class ServiceProcess:
    name: str
    port: int
    env: dict[str, str]
    log: Path
    module: str = ""
    forked: bool = True  # from the fork server; False: exec'd, as in production (the benchmarks)
    process: ForkedProcess | subprocess.Popen | None = None
    logged: int = 0  # the log's size when the process was last started

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.logged = self.log.stat().st_size if self.log.exists() else 0
        module = self.module or f"felt_{self.name}"
        if self.forked:
            self.process = fork_server().spawn(module, self.env, REPO, self.log)
        else:
            self.process = subprocess.Popen(
                [sys.executable, "-m", module],
                env=self.env,
                cwd=REPO,
                stdout=self.log.open("ab"),
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Until its `/readyz` answers 200 from its own process. `free_port()` is free only when
        asked: another worker's process may take the port first and answer `/readyz` for it (a
        stack once ran without its wallet that way), so the port must be this process's, and a
        service that found its port taken is started again on another."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                if "address already in use" in self.new_output().lower():
                    self.port = infra.free_port()
                    self.env["FELT_HTTP_PORT"] = str(self.port)
                    self.start()
                    continue
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200 and self.listens():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready within {timeout}s:\n{self.tail()}")

    def listens(self) -> bool:
        """This process (not another one) listens on the service's port."""
        assert self.process is not None
        try:
            conns = psutil.Process(self.process.pid).net_connections("tcp")
        except psutil.Error:
            return False
        return any(c.status == psutil.CONN_LISTEN and c.laddr.port == self.port for c in conns)

    def new_output(self) -> str:
        """What the log got since the last start."""
        with self.log.open("rb") as f:
            f.seek(self.logged)
            return f.read().decode(errors="replace")

    def kill9(self) -> None:
        """Crash it: no shutdown hooks, no goodbyes."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 15.0) -> None:
        if self.process is not None:
            infra.stop_process(self.process, timeout)

    def restart(self) -> None:
        self.stop()
        self.start()
        self.wait_ready()

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


@dataclass
class ServiceRunner:
    """Starts services with the test run's NATS, Redis and a database URL."""

    nats_url: str
    redis_url: str
    workdir: Path
    forked: bool = True
    running: list[ServiceProcess] = field(default_factory=list)

    def start(
        self, name: str, *, database_url: str = "", ready: bool = True, module: str = "", **extra_env: str
    ) -> ServiceProcess:
        env = dict(os.environ)
        env.update(
            identity_env(self.nats_url, name),
            FELT_REDIS_URL=self.redis_url,
            FELT_DATABASE_URL=database_url,
            FELT_VAR_DIR=str(self.workdir),
            FELT_HTTP_PORT=str(infra.free_port()),
            PYTHONUNBUFFERED="1",
        )
        env.update({k.upper(): v for k, v in extra_env.items()})
        log = self.workdir / f"{name}-{len(self.running)}.log"
        proc = ServiceProcess(name, int(env["FELT_HTTP_PORT"]), env, log, module=module, forked=self.forked)
        proc.start()
        self.running.append(proc)
        if ready:
            proc.wait_ready()
        return proc

    def stop_all(self) -> None:
        for proc in reversed(self.running):
            proc.stop()
        self.running.clear()
