"""Observability on a real room: every service serves Prometheus `/metrics` with the room's
counters moving, and one action's correlation id is in the JSON logs of the gateway, the
table and the wallet."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path

import httpx
import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families
from faststream.nats import NatsBroker

from felt_contracts.health import HealthRequest, HealthStatus
from felt_runtime.bus import BusError, call
from felt_runtime.metrics import REGISTRY
from tests.gateway.conftest import running_stack
from tests.support.gateway import create_table, new_agent, sign_up

#: DEBUG logs where the correlation id is followed; a full collection every second everywhere
ENV = {
    name: {
        "FELT_GC_FULL_SECONDS": "1",
        **({"FELT_LOG_LEVEL": "DEBUG"} if name in ("gateway", "table", "wallet") else {}),
    }
    for name in ("gateway", "table", "wallet", "limits", "timer", "chat", "tournament")
}


def _sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text exposition (0 when absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return 0.0


def _is_json(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


async def _paced_rounds(urls: dict[str, str], within: float = 30.0) -> dict[str, float]:
    """Each service's `felt_gc_pause_seconds_count`, waited for until it is at least 1 (a round a
    second, `ENV`; a service up for less than a second has had none) or `within` seconds passed."""
    deadline = time.monotonic() + within
    counts: dict[str, float] = {}
    async with httpx.AsyncClient(timeout=5) as client:
        for name, url in urls.items():
            while True:
                counts[name] = _sample((await client.get(f"{url}/metrics")).text, "felt_gc_pause_seconds_count")
                if counts[name] >= 1 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
    return counts


def _lines_with(log: Path, cid: str) -> list[dict]:
    out = []
    for line in log.read_text(errors="replace").splitlines():
        if cid in line:
            out.append(json.loads(line))
    return out


async def test_metrics_everywhere_and_one_correlation_id_from_gateway_to_wallet(
    nats_url: str, redis_url: str, tmp_path: Path
) -> None:
    with running_stack(
        nats_url, redis_url, tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}", **ENV
    ) as stack:
        broker = NatsBroker(nats_url)
        await broker.connect()
        try:
            table_id = await create_table(broker)
            async with httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
                players = [await new_agent(http, await sign_up(http)) for _ in range(2)]
                for p in players:
                    assert (
                        await http.post(
                            f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=p["headers"]
                        )
                    ).status_code == 200
                for p in reversed(players):
                    await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=p["headers"])
                view = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=players[0]["headers"])).json()[
                    "table"
                ]
                seat_pid = {s["seat"]: s["participantId"] for s in view["seats"]}
                actor = next(p for p in players if p["participantId"] == seat_pid[view["hand"]["actorSeatId"]])
                cid = f"trace-{uuid.uuid4().hex[:8]}"
                # the fold ends the hand: the table settles it with the wallet, for this action
                r = await http.post(
                    f"/api/v2/poker/tables/{table_id}/actions",
                    json={"type": "fold"},
                    headers={**actor["headers"], "X-Correlation-Id": cid},
                )
                assert r.status_code == 200, r.text
                assert r.headers["x-correlation-id"] == cid
                token = players[0]["headers"]["Authorization"].removeprefix("Bearer ")
                async with websockets.connect(stack.ws_url) as ws:
                    await ws.send(json.dumps({"type": "auth", "token": token}))
                    assert json.loads(await ws.recv())["type"] == "hello"
                    gateway_metrics = (await http.get("/metrics")).text
                metrics = {name: httpx.get(f"{proc.url}/metrics", timeout=5).text for name, proc in stack.procs.items()}
                rounds = await _paced_rounds({**{n: p.url for n, p in stack.procs.items()}, "gateway": stack.url})
        finally:
            await broker.stop()
        # one action, three services: the same correlation id in each one's JSON log lines
        for name, proc in {
            "gateway": stack.gateway,
            "table": stack.procs["table"],
            "wallet": stack.procs["wallet"],
        }.items():
            lines = _lines_with(proc.log, cid)
            assert lines and all(line["correlation_id"] == cid for line in lines), f"{name}: {proc.tail()}"
    # every line of every service's log is one JSON object (FastStream's own lines included)
    for name, proc in {**stack.procs, "gateway": stack.gateway}.items():
        plain = [line for line in proc.log.read_text(errors="replace").splitlines() if line and not _is_json(line)]
        assert plain == [], f"{name}: {plain[:3]}"
    assert _sample(gateway_metrics, "felt_gateway_sockets") == 1
    # every service froze what start-up left alive (full collections paused loops 100-400 ms)
    for name, text in {**metrics, "gateway": gateway_metrics}.items():
        assert _sample(text, "felt_gc_frozen_objects") > 10_000, name
    # and its collector is paced: timed full collections (young ones stopped the gateway 50-180 ms)
    assert all(n >= 1 for n in rounds.values()), rounds
    assert _sample(gateway_metrics, "felt_bus_calls_total", request="TableRequest", outcome="ok") >= 5
    assert _sample(metrics["table"], "felt_hands_total", event="started") >= 1
    assert _sample(metrics["table"], "felt_hands_total", event="finished") >= 1
    assert _sample(metrics["table"], "felt_bus_handled_seconds_count", request="TableRequest", outcome="ok") >= 5
    assert _sample(metrics["wallet"], "felt_wallet_batch_size_count") >= 1
    assert (
        sum(
            _sample(metrics["wallet"], "felt_wallet_transfers_total", command=c, outcome="ok")
            for c in ("BuyIn", "Commit", "Settle")
        )
        >= 3
    )
    for name, text in metrics.items():
        assert "felt_bus_handled_seconds_bucket" in text or name in ("chat", "tournament"), (
            name
        )  # nothing asked them yet


async def test_bus_call_timeouts_and_refusals_are_counted(broker: NatsBroker) -> None:
    """The calling side's counters: no responder is a `timeout`, an error reply its code."""
    before = REGISTRY.get_sample_value("felt_bus_calls_total", {"request": "HealthRequest", "outcome": "timeout"}) or 0
    with pytest.raises(BusError):
        await call(broker, "felt.nobody.listens", HealthRequest(), HealthStatus, timeout=0.3)
    assert (
        REGISTRY.get_sample_value("felt_bus_calls_total", {"request": "HealthRequest", "outcome": "timeout"})
        == before + 1
    )
