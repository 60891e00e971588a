"""`make docs`: an AsyncAPI document per worker service, with the real message schemas."""

from __future__ import annotations

import json
from pathlib import Path

from felt_runtime import catalog
from felt_runtime.asyncapi import write_all


def test_make_docs_writes_asyncapi_with_request_and_reply_schemas(tmp_path: Path) -> None:
    written = {p.stem: json.loads(p.read_text()) for p in write_all(tmp_path)}
    assert set(written) == set(catalog.installed()) - {"gateway", "bots"}
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
