"""The import contracts of `make lint` (`lint-imports`, [tool.importlinter] in pyproject.toml)
hold, and each one fails when a copy of the code breaks it: an upward import in the table
service, an import circle, one service importing another, the engine importing the runtime.

Each break is made in a copy of libs/ and services/ (the repository is not touched) and checked
by a real run of `lint-imports` on that copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]


def contract(contract_id: str) -> dict[str, Any]:
    return next(c for c in CONFIG["contracts"] if c["id"] == contract_id)


def lint_imports(root: Path, *contract_ids: str) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the code under `root` (its libs/ and services/ first on the path)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(root / d) for d in ("libs", "services"))}
    args = [str(LINT_IMPORTS), "--no-logo", "--no-cache", "--config", str(REPO / "pyproject.toml")]
    for contract_id in contract_ids:
        args += ["--contract", contract_id]
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def not_python(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__" or not (n.endswith(".py") or (Path(folder) / n).is_dir())]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The Python code of libs/ and services/, copied."""
    for top in ("libs", "services"):
        shutil.copytree(REPO / top, tmp_path / top, ignore=not_python)
    return tmp_path


def add_import(copy: Path, module: str, statement: str) -> None:
    """Append `statement` to `module` of the copy (a new module if there is none)."""
    path = copy / module
    path.write_text((path.read_text() if path.exists() else "") + f"\n{statement}\n")


def test_the_repository_keeps_every_contract() -> None:
    run = lint_imports(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(CONFIG['contracts'])} kept, 0 broken" in run.stdout


# (contract broken, module of the copy, the import added to it)
BREAKS = {
    "a port imports a command (upward in the table's layers)": (
        "table-layers",
        "services/felt_table/ports/escrow.py",
        "from felt_table.commands import hands",
    ),
    "the model imports the server": (
        "table-layers",
        "services/felt_table/model/table.py",
        "from felt_table.server import actor",
    ),
    "a module of the table service outside every layer": (
        "table-layers",
        "services/felt_table/helpers.py",
        "import json",
    ),
    "two commands import each other": (
        "table-acyclic",
        "services/felt_table/commands/hands.py",
        "from felt_table.commands import play",
    ),
    "a service imports another": (
        "services-independent",
        "services/felt_wallet/ledger.py",
        "from felt_table.settings import TableSettings",
    ),
    "the engine imports the runtime": (
        "engine-pure",
        "libs/felt_engine/cards.py",
        "from felt_runtime import bus",
    ),
    "the engine imports the bus's subjects": (
        "engine-pure",
        "libs/felt_engine/hand.py",
        "from felt_contracts import subjects",
    ),
}


@pytest.mark.parametrize("case", list(BREAKS))
def test_lint_imports_fails_on_a_broken_contract(copy: Path, case: str) -> None:
    contract_id, module, statement = BREAKS[case]
    assert lint_imports(copy, contract_id).returncode == 0  # the copy keeps it until the import is added
    add_import(copy, module, statement)
    run = lint_imports(copy, contract_id)
    assert run.returncode != 0, run.stdout
    assert f"{contract(contract_id)['name']} BROKEN" in run.stdout


def test_every_service_is_in_the_independence_contract() -> None:
    """A new service under services/ is covered by "services never import each other"."""
    services = {p.name for p in (REPO / "services").iterdir() if (p / "__init__.py").is_file()}
    # a lib is a package in libs/ or a distribution of its own there (libs/felt_client/felt_client)
    libs = {
        p.name
        for p in (REPO / "libs").iterdir()
        if (p / "__init__.py").is_file() or (p / p.name / "__init__.py").is_file()
    }
    assert set(contract("services-independent")["modules"]) == services
    assert set(CONFIG["root_packages"]) == services | libs
    assert services <= set(contract("engine-pure")["forbidden_modules"])
