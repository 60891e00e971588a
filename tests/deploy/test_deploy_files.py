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
from felt_runtime.bus import DRAIN_SECONDS
from felt_runtime.migrate import migrated_services
from felt_runtime.settings import Settings

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEPLOYED = {name for name in catalog.installed() if name != "bots"}  # bots are a client, not part of the room
SETTINGS = {f"FELT_{name.upper()}" for name in Settings.model_fields}
MIGRATED = set(migrated_services())


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def _render(overlay: str) -> list[dict]:
    out = subprocess.run(
        [str(BIN / "kubectl"), "kustomize", str(REPO / "deploy/k8s/overlays" / overlay)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def _module_of(command: list[str]) -> str:
    assert command[:2] == ["python", "-m"], command
    return command[2]


def _env_names(path: Path) -> set[str]:
    lines = [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return {line.split("=", 1)[0] for line in lines}


def test_compose_runs_every_service_with_real_modules_ports_and_settings() -> None:
    compose = _compose()
    services = compose["services"]
    felt = {
        n: s for n, s in services.items() if n != "migrate" and "command" in s and s["command"][:2] == ["python", "-m"]
    }
    assert set(felt) == DEPLOYED
    for name, svc in felt.items():
        assert _module_of(svc["command"]) == f"felt_{name}"
        assert "build" in svc and (REPO / svc["build"]["dockerfile"]).is_file()
        assert "environment" not in svc, f"{name}: settings belong in the shared env files"
        names = set().union(*(_env_names(REPO / f) for f in svc["env_file"]))
        assert names <= SETTINGS, f"{name}: unknown settings {names - SETTINGS}"
        port = int(re.search(r":(\d+)/readyz", " ".join(svc["healthcheck"]["test"])).group(1))
        assert port == catalog.default_port(name)
        for dep in svc["depends_on"]:
            assert dep in services
        assert svc["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert services["migrate"]["command"] == ["python", "-m", "felt_runtime.cli", "migrate"]


def test_dockerfile_copies_what_exists() -> None:
    text = (REPO / "deploy/Dockerfile").read_text()
    for src in re.findall(r"^COPY (\S+)", text, flags=re.M):
        for part in src.split():
            assert (REPO / part).exists(), part


@pytest.fixture(scope="module", params=["dev", "prod"])
def rendered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict], Path]:
    docs = _render(request.param)
    path = tmp_path_factory.mktemp("k8s") / f"{request.param}.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return request.param, docs, path


def _kinds(docs: list[dict], kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def _selects(selector: dict, labels: dict[str, str]) -> bool:
    """Kubernetes label-selector semantics (matchLabels and In / Exists expressions)."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for e in selector.get("matchExpressions", []):
        if e["operator"] == "In" and labels.get(e["key"]) not in e["values"]:
            return False
        if e["operator"] == "Exists" and e["key"] not in labels:
            return False
    return True


def test_kustomize_overlay_renders_and_validates_strictly(rendered: tuple[str, list[dict], Path]) -> None:
    _, _, path = rendered
    done = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", "-k", "1.33.0", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_service_has_a_deployment_service_probes_pdb_and_network_policy(
    rendered: tuple[str, list[dict], Path],
) -> None:
    _, docs, _ = rendered
    deployments = {n.removeprefix("felt-"): d for n, d in _kinds(docs, "Deployment").items()}
    assert set(deployments) == DEPLOYED
    services, pdbs, policies = (
        _kinds(docs, "Service"),
        _kinds(docs, "PodDisruptionBudget"),
        _kinds(docs, "NetworkPolicy"),
    )
    for name, dep in deployments.items():
        pod = dep["spec"]["template"]
        labels, spec = pod["metadata"]["labels"], pod["spec"]
        container = spec["containers"][0]
        assert _module_of(container["command"]) == f"felt_{name}"
        assert container["ports"][0]["containerPort"] == catalog.default_port(name)
        assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert container["resources"]["requests"] and container["resources"]["limits"]
        assert spec["securityContext"]["runAsNonRoot"] and container["securityContext"]["readOnlyRootFilesystem"]
        # graceful termination covers the preStop pause and the bus drain
        assert (
            spec["terminationGracePeriodSeconds"]
            > container["lifecycle"]["preStop"]["sleep"]["seconds"] + DRAIN_SECONDS
        )
        assert any(_selects({"matchLabels": s["spec"]["selector"]}, labels) for s in services.values()), name
        assert any(_selects(p["spec"]["selector"], labels) for p in pdbs.values()), name
        assert any(
            _selects(p["spec"]["podSelector"], labels) and p["spec"].get("ingress") for p in policies.values()
        ), name
        if name in MIGRATED:
            assert spec["initContainers"][0]["command"][-4:-2] == ["migrate", "--wait"]
    job = _kinds(docs, "Job")["felt-migrate"]["spec"]["template"]["spec"]["containers"][0]
    assert job["command"] == ["python", "-m", "felt_runtime.cli", "migrate"]


def test_only_the_gateway_takes_outside_traffic(rendered: tuple[str, list[dict], Path]) -> None:
    _, docs, _ = rendered
    policies = _kinds(docs, "NetworkPolicy")
    assert policies["default-deny-ingress"]["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    open_to_all = [p for p in policies.values() for rule in p["spec"].get("ingress", []) if "from" not in rule]
    assert [p["metadata"]["name"] for p in open_to_all] == ["felt-gateway"]
    ingress = next(iter(_kinds(docs, "Ingress").values()))
    backends = {
        path["backend"]["service"]["name"] for rule in ingress["spec"]["rules"] for path in rule["http"]["paths"]
    }
    assert backends == {"felt-gateway"}
    for private in ("/metrics", "/healthz", "/readyz"):
        assert not any(
            private == p["path"] or (p["pathType"] == "Prefix" and private.startswith(p["path"].rstrip("/") + "/"))
            for rule in ingress["spec"]["rules"]
            for p in rule["http"]["paths"]
        ), private
    assert (
        int(ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    )  # WebSockets


def test_autoscalers_nats_cluster_and_databases(rendered: tuple[str, list[dict], Path]) -> None:
    overlay, docs, _ = rendered
    hpas = {h["spec"]["scaleTargetRef"]["name"] for h in _kinds(docs, "HorizontalPodAutoscaler").values()}
    assert hpas == {"felt-gateway", "felt-table", "felt-chat"}
    sets, services = _kinds(docs, "StatefulSet"), _kinds(docs, "Service")
    nats = sets["nats"]
    assert nats["spec"]["replicas"] == 3
    limits = _kinds(docs, "Deployment")["felt-limits"]["spec"]  # holds and read copy are one process's
    assert limits["replicas"] == 1 and limits["strategy"] == {"type": "Recreate"}
    conf = _kinds(docs, "ConfigMap")
    nats_conf = next(c for n, c in conf.items() if n.startswith("nats-config"))["data"]["nats.conf"]
    assert "jetstream" in nats_conf and nats_conf.count("nats-headless:6222") == 3
    if overlay == "dev":
        assert {"postgres", "valkey"} <= set(sets)
    else:
        assert not {"postgres", "valkey"} & set(sets)
        assert {services[n]["spec"]["type"] for n in ("postgres", "valkey")} == {"ExternalName"}


def test_compose_and_manifests_share_one_list_of_configuration_names(rendered: tuple[str, list[dict], Path]) -> None:
    _, docs, _ = rendered
    config = next(d for n, d in _kinds(docs, "ConfigMap").items() if n.startswith("felt-config"))
    names = set(config["data"])
    assert names <= SETTINGS
    compose = _compose()["x-felt"]["env_file"]
    shared = REPO / "deploy/k8s/base/felt.env"
    assert str(shared.relative_to(REPO)) in compose and names == _env_names(shared)
    secret_names = _env_names(REPO / "deploy/k8s/overlays/dev/secrets.env")
    for secret in _kinds(docs, "Secret").values():
        assert set(secret["data"]) == secret_names


def test_the_validator_can_fail(tmp_path: Path) -> None:
    """Guard against a validator that passes everything."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: many}\n")
    done = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", "-k", "1.33.0", str(bad)], capture_output=True, text=True
    )
    assert done.returncode != 0


def test_grafana_dashboard_queries_only_metrics_the_services_export() -> None:
    import json

    from felt_runtime.metrics import REGISTRY

    exported = {s.name for family in REGISTRY.collect() for s in family.samples} | {
        f"{family.name}{suffix}" for family in REGISTRY.collect() for suffix in ("_total", "_bucket", "_sum", "_count")
    }
    dashboard = json.loads((REPO / "deploy/grafana/felt.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {name for e in exprs for name in re.findall(r"\bfelt_[a-z_]+", e)}
    assert used and used <= exported, used - exported
    families = {family.name for family in REGISTRY.collect()}
    assert {
        n.removesuffix("_total").removesuffix("_bucket").removesuffix("_sum").removesuffix("_count") for n in used
    } == families, "every metric has a panel"
