"""A room behind the gateway as tests and benchmarks meet it: the running stack of service
processes, a signed-up owner, an agent with its API key, and the simplest legal policy."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from felt_contracts import subjects
from felt_contracts.table import CreateTable, TableConfig, TableSummary
from felt_runtime.bus import call
from tests.support.services import ServiceProcess, ServiceRunner


def socket_url(http_url: str) -> str:
    """The gateway's WebSocket address, from its HTTP one."""
    return http_url.replace("http://", "ws://") + "/ws"


@dataclass
class Stack:
    gateway: ServiceProcess
    runner: ServiceRunner
    database_url: str
    procs: dict[str, ServiceProcess] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.gateway.url

    @property
    def ws_url(self) -> str:
        return socket_url(self.gateway.url)

    def has(self, name: str) -> bool:
        return name in self.procs


def unique_email() -> str:
    return f"p{uuid.uuid4().hex[:12]}@example.org"


async def sign_up(http: httpx.AsyncClient, password: str = "correct horse battery") -> dict:
    """A new owner, logged in: {email, ownerId, participantId, token, headers}."""
    email = unique_email()
    r = await http.post("/api/v2/accounts/signup", json={"email": email, "password": password})
    assert r.status_code == 201, r.text
    r2 = await http.post("/api/v2/accounts/login", json={"email": email, "password": password})
    assert r2.status_code == 200, r2.text
    body = r2.json()
    return {
        "email": email,
        "ownerId": body["ownerId"],
        "participantId": body["participantId"],
        "token": body["token"],
        "headers": {"Authorization": f"Bearer {body['token']}"},
    }


async def new_agent(http: httpx.AsyncClient, owner: dict, name: str = "bot") -> dict:
    r = await http.post("/api/v2/accounts/agents", json={"name": name}, headers=owner["headers"])
    assert r.status_code == 201, r.text
    body = r.json()
    return {
        "participantId": body["participantId"],
        "apiKey": body["apiKey"],
        "headers": {"Authorization": f"Bearer {body['apiKey']}"},
    }


def choose(legal: dict) -> dict:
    """A simple legal policy: check, else call, else fold (keeps hands short but reaching showdowns)."""
    if legal.get("check"):
        return {"type": "check"}
    if legal.get("call") is not None:
        return {"type": "call"}
    return {"type": "fold"}


async def create_table(bus: Any, **cfg: Any) -> str:
    """A fresh table over the bus (nlhe-1 1/2, buy-in 20-200, 6 seats unless `cfg` says otherwise)."""
    table_id = f"g{uuid.uuid4().hex[:10]}"
    config = TableConfig(
        table_id=table_id,
        **{**dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=200, seats=6), **cfg},
    )
    await call(bus, subjects.TABLE_CREATE, CreateTable(config=config), TableSummary)
    return table_id
