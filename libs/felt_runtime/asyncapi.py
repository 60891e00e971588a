"""Write the AsyncAPI document of every installed worker service (`make docs`).

Builds each service's app exactly as `python -m felt_<name>` would, without connecting,
and writes `<out>/<service>.json`; the gateway's HTTP API is documented by its OpenAPI.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pydantic import BaseModel

from felt_contracts.base import Reply
from felt_runtime.bus import CONTRACTS

from felt_runtime import catalog
from felt_runtime.service import build_app
from felt_runtime.settings import Settings


def with_contracts(spec: dict[str, Any]) -> dict[str, Any]:
    """Put each request model (and its reply) into the document.

    Handlers validate raw bodies themselves, so FastStream sees no payload type; the
    models registered by `responder` are the truth."""
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
                reply = Reply[result]  # type: ignore[valid-type]
                message["x-reply"] = {"$ref": f"#/components/schemas/{_add_schema(schemas, reply)}"}
    schemas.pop("EmptyPayload", None)
    return spec


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
        app, _ = build_app(name, build, Settings())
        spec = with_contracts(app.schema.to_specification().to_jsonable())
        path = out / f"{name}.json"
        path.write_text(json.dumps(spec, indent=2, sort_keys=True) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/asyncapi")):
        print(p)
