"""Chat test fixtures: one chat process per test module (its own Redis prefix, a short
throttle window), a bus client, helpers to join and post. Each test uses fresh table and
participant ids, so tests never share membership, history or throttle state."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from faststream.nats import NatsBroker

from felt_contracts import subjects
from felt_contracts.chat import ChatJoin, ChatMembership, ChatPost, ChatPosted
from felt_runtime.bus import call
from tests.support.services import ServiceProcess, ServiceRunner

LIMIT = 5  # the default: 5 messages per participant per window
WINDOW = 2.0  # seconds (default 10; short so the "allowed again" test is quick)


@pytest.fixture(scope="module")
def chat(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    runner = ServiceRunner(nats_url, redis_url, tmp_path_factory.mktemp("chat"))
    proc = runner.start(
        "chat",
        felt_chat_prefix=f"c-{uuid.uuid4().hex[:8]}",
        felt_chat_max_messages=str(LIMIT),
        felt_chat_window_seconds=str(WINDOW),
        felt_chat_consumer=f"chat-test-{uuid.uuid4().hex[:8]}",
    )
    yield proc
    runner.stop_all()


@pytest.fixture
def broker(broker: NatsBroker, chat: ServiceProcess) -> NatsBroker:
    """The shared bus client, with this module's chat process running."""
    return broker


def fresh(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def table() -> str:
    return fresh("t")


async def join(broker: NatsBroker, table_id: str, participant_id: str, role: str = "seated") -> ChatMembership:
    return await call(
        broker,
        subjects.CHAT_JOIN,
        ChatJoin(table_id=table_id, participant_id=participant_id, role=role),
        ChatMembership,
    )


async def post(broker: NatsBroker, table_id: str, participant_id: str, text: str, **extra: Any) -> ChatPosted:
    req = ChatPost(
        table_id=table_id,
        participant_id=participant_id,
        display_name=extra.pop("display_name", "Ann"),
        text=text,
        **extra,
    )
    return await call(broker, subjects.CHAT_POST, req, ChatPosted)


async def raw_request(broker: NatsBroker, subject: str, body: bytes | dict[str, Any]) -> dict[str, Any]:
    """Send a raw body, return the decoded reply envelope (and keep its raw bytes)."""
    reply = await broker.request(body, subject, timeout=5)
    decoded = await reply.decode()
    assert isinstance(decoded, dict)
    decoded["_raw"] = reply.body
    return decoded
