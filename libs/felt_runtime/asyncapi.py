"""Write the AsyncAPI document of every installed worker service (`make docs`).

Builds each service's app exactly as `python -m felt_<name>` would, without connecting,
and writes `<out>/<service>.json`; the gateway's HTTP API is documented by its OpenAPI.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, unquote

from pydantic import BaseModel

from felt_contracts.base import Reply
from felt_runtime.bus import CONTRACTS, Route, responders

from felt_runtime import catalog
from felt_runtime.service import build_app
from felt_runtime.settings import Settings


def with_contracts(spec: dict[str, Any], routes: Iterable[Route] = ()) -> dict[str, Any]:
    """Put the responders' subjects into FastStream's document (it knows only its own
    subscribers: the event consumers; responders are plain nats-py subscriptions), and each
    request model (and its reply) and event model as its channel's payload.

    Handlers validate raw bodies themselves, so FastStream sees no payload type; the
    models registered by `responder` and `declare_contract` are the truth."""
    for route in routes:
        _add_channel(spec, route)
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    for channel in spec.get("channels", {}).values():
        contract = CONTRACTS.get(channel.get("address", ""))
        if contract is None:
            continue
        request, result = contract
        for ref in channel.get("messages", {}).values():
            message = spec["components"]["messages"][unquote(ref["$ref"].rsplit("/", 1)[-1])]
            message["payload"] = {"$ref": f"#/components/schemas/{_add_schema(schemas, request)}"}
            if result is not None:
                reply = Reply[result]  # type: ignore[valid-type]  # a subscript with a runtime class, as pydantic allows
                message["x-reply"] = {"$ref": f"#/components/schemas/{_add_schema(schemas, reply)}"}
    schemas.pop("EmptyPayload", None)
    return spec


def _add_channel(spec: dict[str, Any], route: Route) -> None:
    """A channel, message and receive operation shaped like FastStream's for a subscriber."""
    key = route.title
    if key in spec.get("channels", {}):
        return
    message_key = f"{key}:SubscribeMessage"
    spec.setdefault("channels", {})[key] = {
        "address": route.subject,
        **({"description": route.description} if route.description else {}),
        "servers": [{"$ref": f"#/servers/{name}"} for name in spec.get("servers", {})],
        "messages": {"SubscribeMessage": {"$ref": f"#/components/messages/{quote(message_key, safe=':')}"}},
        "bindings": {"nats": {"subject": route.subject, "queue": route.queue, "bindingVersion": "custom"}},
    }
    spec.setdefault("components", {}).setdefault("messages", {})[message_key] = {
        "title": message_key,
        "correlationId": {"location": "$message.header#/correlation_id"},
        "payload": {"$ref": "#/components/schemas/EmptyPayload"},  # replaced by the contract below
    }
    spec.setdefault("operations", {})[key] = {
        "action": "receive",
        "channel": {"$ref": f"#/channels/{quote(key, safe=':')}"},
        "messages": [{"$ref": f"#/channels/{quote(key, safe=':')}/messages/SubscribeMessage"}],
    }


def _add_schema(schemas: dict[str, Any], model: type[BaseModel]) -> str:
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(schema.pop("$defs", {}))
    name = model.__name__.replace("[", "_").replace("]", "").replace(".", "_")
    schemas[name] = schema
    return name


def write_all(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in catalog.installed():
        module = importlib.import_module(f"felt_{name}.app")
        build = getattr(module, "build", None)
        if build is None:  # an HTTP service with its own OpenAPI (the gateway)
            continue
        app, ctx = build_app(name, build, Settings())
        routes = responders(ctx.broker).routes.values()
        spec = with_contracts(app.schema.to_specification().to_jsonable(), routes)
        path = out / f"{name}.json"
        path.write_text(json.dumps(spec, indent=2, sort_keys=True) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/asyncapi")):
        print(p)
