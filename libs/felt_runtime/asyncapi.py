"""Write the AsyncAPI document of every installed worker service (`make docs`).

Builds each service's app exactly as `python -m felt_<name>` would, without connecting,
and writes `<out>/<service>.json`; the gateway's HTTP API is documented by its OpenAPI.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from felt_runtime import catalog
from felt_runtime.service import build_app
from felt_runtime.settings import Settings


def write_all(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in catalog.installed():
        module = importlib.import_module(f"felt_{name}.app")
        build = getattr(module, "build", None)
        if build is None:  # an HTTP service with its own OpenAPI (the gateway)
            continue
        app, _ = build_app(name, build, Settings())
        path = out / f"{name}.json"
        path.write_text(app.schema.to_specification().to_json() + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/asyncapi")):
        print(p)
