"""`felt`: the operator's command. `make run` calls `felt up`.

felt up              start NATS, Valkey and every installed service (Ctrl-C stops all);
                     a service that exits is restarted with backoff
felt infra           start only NATS and Valkey
felt service NAME    run one service in the foreground
felt status          ask each service's /readyz; print the answers and restart counts
felt services        list the installed services and their ports
felt migrate [--wait]  migrate every service's schema (or wait until none is due)
felt bots --table ID --level hard --count 3
                     seat bots at a table (asks the running bots service); --tournament ID
                     registers them for a tournament; without either: list the running bots
felt table list|create|close   manage the running room's tables (tables_cli.py)
felt mcp --api-key KEY [--http]  the agent API as an MCP server for one agent (docs/agents.md)
felt tournament list|create|cancel   manage the running room's tournaments (tournament_cli.py)
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import get_args

import httpx

from felt_client import mcp_server
from felt_contracts.bots import Level
from felt_runtime import catalog, infra, nats_access, supervise, tables_cli, tournament_cli
from felt_runtime.service import ConfigError, load_settings
from felt_runtime.settings import DEFAULT_NATS_PORT, DEFAULT_REDIS_PORT, Settings


def _service_env(servers: list[infra.Server]) -> dict[str, str]:
    """The children talk to the servers `felt up` started (each as its own NATS user, `_launcher`)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    urls = {s.name: s.url for s in servers}
    env["FELT_NATS_URL"], env["FELT_REDIS_URL"] = urls["nats"], urls["valkey"]
    return env


def start_infra(settings: Settings) -> list[infra.Server]:
    """Start NATS and Valkey under `var/`, unless something already listens on their ports."""
    var = settings.var_dir
    nats_port, redis_port = settings.default_port(DEFAULT_NATS_PORT), settings.default_port(DEFAULT_REDIS_PORT)
    for port, what in ((nats_port, "NATS"), (redis_port, "Valkey")):
        if infra.port_open("127.0.0.1", port):
            sys.exit(f"felt: {what} port {port} is in use: is another `felt up` running? Stop it first.")
    config, _ = nats_access.generate(var / "nats")
    nats = infra.start_nats(nats_port, var / "nats", var / "logs" / "nats.log", config=config)
    try:
        valkey = infra.start_valkey(redis_port, var / "valkey", var / "logs" / "valkey.log", persist=True)
    except infra.InfraError:
        nats.stop()
        raise
    print(f"nats    {nats.url}  (JetStream store {var / 'nats'}; users and permissions {config})")
    print(f"valkey  {valkey.url}")
    return [nats, valkey]


#: a first start on a slow laptop compiles every module before it serves
READY_SECONDS = 90.0


def wait_ready(names: list[str], settings: Settings, timeout: float = READY_SECONDS) -> dict[str, str]:
    """Poll every service's /readyz until all answer 200 or the time is up."""
    deadline = time.monotonic() + timeout
    state = {n: "starting" for n in names}
    while time.monotonic() < deadline and any(v != "ok" for v in state.values()):
        for name in names:
            if state[name] != "ok":
                state[name] = probe(name, settings)
        time.sleep(0.3)
    return state


def service_url(name: str, settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.default_port(catalog.default_port(name))}"


def probe(name: str, settings: Settings) -> str:
    try:
        r = httpx.get(f"{service_url(name, settings)}/readyz", timeout=2)
    except httpx.HTTPError as exc:
        return f"down ({type(exc).__name__})"
    return "ok" if r.status_code == 200 else f"not ready ({r.text[:200]})"


def up(with_services: bool = True) -> int:
    settings = Settings()
    var = settings.var_dir
    (var / "logs").mkdir(parents=True, exist_ok=True)
    for sig in (signal.SIGINT, signal.SIGTERM):  # also when started in the background
        signal.signal(sig, _interrupt)
    children: list[infra.Server] = start_infra(settings)
    supervisor = supervise.Supervisor(var / supervise.STATE_FILE, report=lambda line: print(line, flush=True))
    env = _service_env(children)
    try:
        names = catalog.installed() if with_services else []
        passwords = nats_access.read_passwords(var / "nats")
        for name in names:
            identity = {"FELT_NATS_USER": name, "FELT_NATS_PASSWORD": passwords[name]}
            supervisor.add(name, _launcher(name, {**env, **identity}, var / "logs" / f"{name}.log"))
        if names:
            state = wait_ready(names, settings)
            for name in names:
                late = "" if state[name] == "ok" else f" after {READY_SECONDS:.0f} s (see {var / 'logs' / name}.log)"
                print(f"{name:8} {service_url(name, settings)}  {state[name]}{late}")
            if "gateway" in names:
                print(f"\nPlay in a browser: {service_url('gateway', settings)}/")
                print(f"Agents: {service_url('gateway', settings)}/api/v2/poker (OpenAPI at /docs)")
        print(f"Logs in {var / 'logs'}. Ctrl-C stops everything.", flush=True)
        while True:
            supervisor.poll()
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("\nstopping…")
    finally:
        procs = supervisor.running()

        def hurry(*_: object) -> None:
            """Ctrl-C again while stopping: kill what is left instead of waiting (it used to
            interrupt the stop itself, leaving children and servers running)."""
            for proc in procs:
                proc.kill()

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, hurry)
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        supervisor.close()
        for server in reversed(children):
            server.stop()
    return 0


def _launcher(name: str, env: dict[str, str], log: Path) -> Callable[[], subprocess.Popen]:
    """Start (and, after a crash, start again) one service, appending to its log unbuffered (a
    crash keeps its last lines); at its `catalog.NICE` unless the operator set `FELT_NICE` for all."""
    env = {"FELT_NICE": str(catalog.nice(name)), **env, "PYTHONUNBUFFERED": "1"}

    def start() -> subprocess.Popen:
        with log.open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", f"felt_{name}"], env=env, stdout=out, stderr=subprocess.STDOUT
            )

    return start


def _interrupt(*_: object) -> None:
    """SIGTERM stops `felt up` the same way Ctrl-C does."""
    raise KeyboardInterrupt


def status() -> int:
    """Readiness of every service, and how often `felt up` has restarted it."""
    settings = Settings()
    supervised = supervise.read_state(settings.var_dir / supervise.STATE_FILE)
    bad = 0
    for name in catalog.installed():
        state = probe(name, settings)
        bad += state != "ok"
        child = supervised.get(name)
        restarts = (
            f"  restarts {child['restarts']}"
            + (f" (last exit {child['last_exit']})" if child["last_exit"] is not None else "")
            if child
            else ""
        )
        print(f"{name:8} {state}{restarts}")
    return 1 if bad else 0


def bots(table: str | None, level: Level, count: int, tournament: str | None = None) -> int:
    """Ask the room's bots service (over its NATS) to seat bots or register them for a
    tournament, or list them."""
    import asyncio

    from felt_contracts import subjects
    from felt_contracts.bots import AddBots, BotsQuery, BotsStatus
    from felt_contracts.access import OPERATOR
    from felt_runtime.bus import BusError, call, make_broker
    from felt_runtime.nats_access import connect_options

    settings = Settings()

    async def ask() -> BotsStatus:
        broker = make_broker(settings.nats_url, "cli", **connect_options(settings, OPERATOR))
        await asyncio.wait_for(broker.connect(), 5)
        try:
            if table is None and tournament is None:
                return await call(broker, subjects.BOTS_STATUS, BotsQuery(), BotsStatus)
            add = AddBots(table_id=table, tournament_id=tournament, level=level, count=count)
            return await call(broker, subjects.BOTS_ADD, add, BotsStatus, timeout=60)
        finally:
            await broker.stop()

    try:
        answer = asyncio.run(ask())
    except BusError as exc:
        print(f"felt bots: {exc.code.value}: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as exc:
        print(
            f"felt bots: no bots service answers at {settings.nats_url} ({type(exc).__name__}): is the room running?",
            file=sys.stderr,
        )
        return 1
    for b in answer.bots:
        print(
            f"{b.name:24} {b.level:7} {b.table_id:16} {'seated' if b.seated else 'away':7} hands {b.hands:5}  actions {b.actions:6}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="felt", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("up", help="start NATS, Valkey and every installed service")
    sub.add_parser("infra", help="start only NATS and Valkey")
    one = sub.add_parser("service", help="run one service in the foreground")
    one.add_argument("name", choices=list(catalog.SERVICES))
    sub.add_parser("status", help="readiness of every installed service")
    sub.add_parser("services", help="list installed services")
    mig = sub.add_parser("migrate", help="migrate every service's schema (the Kubernetes migration Job)")
    mig.add_argument("--wait", action="store_true", help="only wait until no migration is due (init containers)")
    mig.add_argument("--timeout", type=float, default=600, help="seconds --wait waits")
    add = sub.add_parser("bots", help="seat bots at a table (or list them)")
    place = add.add_mutually_exclusive_group()
    place.add_argument("--table", help="table id (omit both to list the running bots)")
    place.add_argument("--tournament", help="tournament id: register bots, which play it to the end")
    add.add_argument("--level", choices=get_args(Level), default="normal")
    add.add_argument("--count", type=int, default=1, choices=range(1, 10), metavar="1..9")
    tables_cli.add_parser(sub)
    mcp_server.parser(sub.add_parser("mcp", help="the agent API as an MCP server, acting with one agent API key"))
    tournament_cli.add_parser(sub)
    args = parser.parse_args(argv)
    try:  # a bad FELT_* value is one line naming it, as when a service starts
        load_settings("cli", Settings)
    except ConfigError as exc:
        print(exc.line, file=sys.stderr)
        return 2
    if args.cmd == "table":
        return tables_cli.run(args)
    if args.cmd == "mcp":
        return mcp_server.run(args)
    if args.cmd == "tournament":
        return tournament_cli.run(args)
    if args.cmd == "up":
        return up()
    if args.cmd == "infra":
        return up(with_services=False)
    if args.cmd == "service":
        os.execv(sys.executable, [sys.executable, "-m", f"felt_{args.name}"])
    if args.cmd == "status":
        return status()
    if args.cmd == "migrate":
        from felt_runtime import migrate

        return migrate.run(args.wait, args.timeout)
    if args.cmd == "bots":
        return bots(args.table, args.level, args.count, args.tournament)
    settings = Settings()
    for name in catalog.installed():
        print(f"{name:8} {service_url(name, settings)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
