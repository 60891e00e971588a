"""`make docs`: an AsyncAPI document per worker service, with the real message schemas."""

from __future__ import annotations

import json
from pathlib import Path

from felt_runtime import catalog
from felt_runtime.asyncapi import write_all


def test_make_docs_writes_asyncapi_with_request_and_reply_schemas(tmp_path: Path) -> None:
    written = {p.stem: json.loads(p.read_text()) for p in write_all(tmp_path)}
    assert set(written) == set(catalog.installed()) - {"gateway"}
    for name, doc in written.items():
        assert doc["asyncapi"].startswith("3.")
        messages = doc["components"]["messages"]
        health = next(m for k, m in messages.items() if k.startswith(f"felt.health.{name}:"))
        assert health["payload"] == {"$ref": "#/components/schemas/HealthRequest"}
        assert health["x-reply"] == {"$ref": "#/components/schemas/Reply_HealthStatus"}
        assert "EmptyPayload" not in json.dumps(doc), f"{name}: a handler without its contract"
    if "wallet" in written:
        schemas = written["wallet"]["components"]["schemas"]
        assert {"account_id", "hand_id", "amount", "message_id"} <= set(schemas["Commit"]["properties"])


def test_responders_are_in_the_asyncapi_document_with_their_schemas() -> None:
    """A responder has no FastStream subscriber, yet its subject is documented like one."""
    from felt_runtime.asyncapi import with_contracts
    from felt_runtime.bus import responders
    from felt_runtime.service import build_app
    from felt_runtime.settings import Settings
    from tests.support.demo import ECHO, FAST_ECHO, NOTED, SERIAL_ECHO, build

    app, ctx = build_app("demo", build, Settings())
    raw = app.schema.to_specification().to_jsonable()
    assert {c["address"] for c in raw["channels"].values()} == {NOTED}  # FastStream knows only its subscriber
    doc = with_contracts(raw, responders(ctx.broker).routes.values())
    by_address = {c["address"]: (key, c) for key, c in doc["channels"].items()}
    assert {ECHO, FAST_ECHO, SERIAL_ECHO, NOTED, "felt.health.demo"} == set(by_address)
    plain_key, plain = by_address[NOTED]
    for subject in (ECHO, FAST_ECHO, SERIAL_ECHO):
        key, channel = by_address[subject]
        assert set(channel) == set(plain) and channel["bindings"]["nats"]["queue"] == "felt-demo"
        assert channel["servers"] == plain["servers"]
        message = doc["components"]["messages"][f"{key}:SubscribeMessage"]
        assert message["payload"] == {"$ref": "#/components/schemas/Echo"}
        assert message["x-reply"] == {"$ref": "#/components/schemas/Reply_Echoed"}
        assert set(message) - {"x-reply"} == set(doc["components"]["messages"][f"{plain_key}:SubscribeMessage"])
        assert doc["operations"][key]["action"] == "receive"
        assert doc["operations"][key]["channel"] == {"$ref": f"#/channels/{key}"}
    assert "EmptyPayload" not in json.dumps(doc)


def test_committed_asyncapi_documents_are_current(tmp_path: Path) -> None:
    """docs/asyncapi/ is what `make docs` writes today: a contract change regenerates it."""
    committed = Path(__file__).resolve().parents[2] / "docs" / "asyncapi"
    for fresh in write_all(tmp_path):
        assert (committed / fresh.name).read_text() == fresh.read_text(), f"run `make docs`: {fresh.name} is stale"
