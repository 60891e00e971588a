"""The docker-compose file, the Dockerfile and the Kubernetes manifests, checked offline
(no Docker engine or cluster here): they render, validate against the Kubernetes schemas,
and name only services, modules, ports and settings that exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from felt_runtime import catalog
from felt_runtime.settings import Settings

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEPLOYED = {name for name in catalog.installed() if name != "bots"}  # bots are a client, not part of the room
SETTINGS = {f"FELT_{name.upper()}" for name in Settings.model_fields}


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def _render(overlay: str) -> list[dict]:
    out = subprocess.run(
        [str(BIN / "kubectl"), "kustomize", str(REPO / "deploy/k8s/overlays" / overlay)],
        capture_output=True, text=True, check=True,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def _module_of(command: list[str]) -> str:
    assert command[:2] == ["python", "-m"], command
    return command[2]


def test_compose_runs_every_service_with_real_modules_ports_and_settings() -> None:
    compose = _compose()
    services = compose["services"]
    felt = {n: s for n, s in services.items() if "command" in s and s["command"][:2] == ["python", "-m"]}
    assert set(felt) == DEPLOYED
    for name, svc in felt.items():
        assert _module_of(svc["command"]) == f"felt_{name}"
        assert "build" in svc and (REPO / svc["build"]["dockerfile"]).is_file()
        assert set(svc["environment"]) <= SETTINGS, f"{name}: unknown settings"
        port = int(re.search(r":(\d+)/readyz", " ".join(svc["healthcheck"]["test"])).group(1))
        assert port == catalog.default_port(name)
        for dep in svc["depends_on"]:
            assert dep in services


def test_dockerfile_copies_what_exists() -> None:
    text = (REPO / "deploy/Dockerfile").read_text()
    for src in re.findall(r"^COPY (\S+)", text, flags=re.M):
        for part in src.split():
            assert (REPO / part).exists(), part


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_kustomize_overlay_renders_and_validates_strictly(overlay: str, tmp_path: Path) -> None:
    docs = _render(overlay)
    rendered = tmp_path / f"{overlay}.yaml"
    rendered.write_text(yaml.safe_dump_all(docs))
    done = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", "-k", "1.33.0", str(rendered)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"].startswith("felt-")}
    assert {n.removeprefix("felt-") for n in deployments} == DEPLOYED
    config = next(d for d in docs if d["kind"] == "ConfigMap")
    assert set(config["data"]) <= SETTINGS
    for name, dep in deployments.items():
        container = dep["spec"]["template"]["spec"]["containers"][0]
        service = name.removeprefix("felt-")
        assert _module_of(container["command"]) == f"felt_{service}"
        assert container["ports"][0]["containerPort"] == catalog.default_port(service)
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_the_validator_can_fail(tmp_path: Path) -> None:
    """Guard against a validator that passes everything."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: many}\n")
    done = subprocess.run([str(BIN / "kubernetes-validate"), "--strict", "-k", "1.33.0", str(bad)], capture_output=True, text=True)
    assert done.returncode != 0
