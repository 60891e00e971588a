"""`felt`: the operator's command. `make run` calls `felt up`.

    felt up              start NATS, Valkey and every installed service (Ctrl-C stops all)
    felt infra           start only NATS and Valkey
    felt service NAME    run one service in the foreground
    felt status          ask each service's /readyz and print the answers
    felt services        list the installed services and their ports
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from felt_runtime import catalog, infra
from felt_runtime.settings import DEFAULT_NATS_PORT, DEFAULT_REDIS_PORT, Settings


def _service_env(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("FELT_NATS_URL", settings.nats_url)
    env.setdefault("FELT_REDIS_URL", settings.redis_url)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start_infra(var: Path) -> list[infra.Server]:
    """Start NATS and Valkey under `var/`, unless something already listens on their ports."""
    for port, what in ((DEFAULT_NATS_PORT, "NATS"), (DEFAULT_REDIS_PORT, "Valkey")):
        if infra.port_open("127.0.0.1", port):
            sys.exit(f"felt: {what} port {port} is in use: is another `felt up` running? Stop it first.")
    nats = infra.start_nats(DEFAULT_NATS_PORT, var / "nats", var / "logs" / "nats.log")
    try:
        valkey = infra.start_valkey(DEFAULT_REDIS_PORT, var / "valkey", var / "logs" / "valkey.log", persist=True)
    except infra.InfraError:
        nats.stop()
        raise
    print(f"nats    {nats.url}  (JetStream store {var / 'nats'})")
    print(f"valkey  {valkey.url}")
    return [nats, valkey]


def wait_ready(names: list[str], timeout: float = 20.0) -> dict[str, str]:
    """Poll every service's /readyz until all answer 200 or the time is up."""
    deadline = time.monotonic() + timeout
    state = {n: "starting" for n in names}
    while time.monotonic() < deadline and any(v != "ok" for v in state.values()):
        for name in names:
            if state[name] != "ok":
                state[name] = probe(name)
        time.sleep(0.3)
    return state


def probe(name: str) -> str:
    try:
        r = httpx.get(f"http://127.0.0.1:{catalog.default_port(name)}/readyz", timeout=2)
    except httpx.HTTPError as exc:
        return f"down ({type(exc).__name__})"
    return "ok" if r.status_code == 200 else f"not ready ({r.text[:200]})"


def up(with_services: bool = True) -> int:
    settings = Settings()
    var = settings.var_dir
    (var / "logs").mkdir(parents=True, exist_ok=True)
    children: list[infra.Server] = start_infra(var)
    procs: list[tuple[str, subprocess.Popen]] = []
    try:
        names = catalog.installed() if with_services else []
        for name in names:
            log = (var / "logs" / f"{name}.log").open("ab")
            procs.append((name, subprocess.Popen([sys.executable, "-m", f"felt_{name}"], env=_service_env(settings), stdout=log, stderr=subprocess.STDOUT)))
        if names:
            state = wait_ready(names)
            for name in names:
                print(f"{name:8} http://127.0.0.1:{catalog.default_port(name)}  {state[name]}")
            if "gateway" in names:
                print(f"\nPlay in a browser: http://127.0.0.1:{catalog.default_port('gateway')}/")
                print(f"Agents: http://127.0.0.1:{catalog.default_port('gateway')}/api/v2/poker (OpenAPI at /docs)")
        print(f"Logs in {var / 'logs'}. Ctrl-C stops everything.")
        signal.signal(signal.SIGTERM, _interrupt)
        while True:
            for name, proc in procs:
                if proc.poll() is not None:
                    print(f"felt: {name} exited with {proc.returncode}; see {var / 'logs' / (name + '.log')}")
                    procs.remove((name, proc))
                    break
            time.sleep(1)
    except KeyboardInterrupt:
        print("\nstopping…")
    finally:
        for _, proc in reversed(procs):
            proc.terminate()
        for _, proc in reversed(procs):
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        for server in reversed(children):
            server.stop()
    return 0


def _interrupt(*_: object) -> None:
    """SIGTERM stops `felt up` the same way Ctrl-C does."""
    raise KeyboardInterrupt


def status() -> int:
    names = catalog.installed()
    bad = 0
    for name in names:
        state = probe(name)
        bad += state != "ok"
        print(f"{name:8} {state}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="felt", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("up", help="start NATS, Valkey and every installed service")
    sub.add_parser("infra", help="start only NATS and Valkey")
    one = sub.add_parser("service", help="run one service in the foreground")
    one.add_argument("name", choices=list(catalog.SERVICES))
    sub.add_parser("status", help="readiness of every installed service")
    sub.add_parser("services", help="list installed services")
    args = parser.parse_args(argv)
    if args.cmd == "up":
        return up()
    if args.cmd == "infra":
        return up(with_services=False)
    if args.cmd == "service":
        os.execv(sys.executable, [sys.executable, "-m", f"felt_{args.name}"])
    if args.cmd == "status":
        return status()
    for name in catalog.installed():
        print(f"{name:8} {catalog.default_port(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
