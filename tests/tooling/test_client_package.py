"""The agents' client is a distribution of its own (libs/felt_client): built offline from its
own pyproject.toml, it requires httpx and pydantic and, through them, nothing of the room's
server; the room depends on it and does not ship a second copy of it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from setuptools.discovery import PEP420PackageFinder

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "libs" / "felt_client"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
#: what the client may bring: its two dependencies and theirs
ALLOWED = {"httpx", "pydantic"}


def built_requirements(tmp_path: Path) -> list[Requirement]:
    """The `Requires-Dist` of the client's wheel, built here without the network (with its extras')."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index", "--no-build-isolation"]
        + ["-w", str(tmp_path), str(CLIENT)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = tmp_path.glob("felt_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode())
    return [Requirement(r) for r in metadata.get_all("Requires-Dist") or []]


def closure(requirements: list[Requirement]) -> set[str]:
    """Every distribution these requirements pull in, resolved against this environment (where
    the room's pins chose their versions); extras and markers as pip evaluates them."""
    seen: set[str] = set()
    todo = list(requirements)
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = distribution(req.name).requires or []
        except PackageNotFoundError:
            continue  # an optional dependency this environment does not have
        for text in requires:
            sub = Requirement(text)
            extras = req.extras or {""}
            if sub.marker is None or any(sub.marker.evaluate({"extra": extra}) for extra in extras):
                todo.append(sub)
    return seen


def test_the_client_requires_httpx_and_pydantic_and_nothing_of_the_server(tmp_path) -> None:
    requirements = [r for r in built_requirements(tmp_path) if r.marker is None or r.marker.evaluate({"extra": ""})]
    assert {canonicalize_name(r.name) for r in requirements} == ALLOWED
    pulled = closure(requirements)
    server = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["tool"]["felt"]["dependencies"]}
    assert pulled & server == ALLOWED, f"the client would install {sorted(pulled & server - ALLOWED)}"
    assert not pulled & {"felt", "fastapi", "starlette", "sqlalchemy", "faststream", "nats-py", "redis", "numpy"}
    assert len(pulled) < 15, sorted(pulled)


def test_the_room_depends_on_the_client_and_ships_no_copy_of_it() -> None:
    requires = [Requirement(r) for r in distribution("felt").requires or []]
    (client,) = [r for r in requires if canonicalize_name(r.name) == "felt-client"]
    assert client.url and client.url.endswith("/libs/felt_client")
    found = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    packages = {
        package
        for where in found["where"]
        for package in PEP420PackageFinder.find(str(REPO / where), exclude=tuple(found.get("exclude", ())))
    }
    assert "felt_gateway" in packages and not any(p.split(".")[0] == "felt_client" for p in packages)
