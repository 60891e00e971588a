"""Test helpers live once: the poll-until and refused-with-a-code mechanics are in
tests/support/waiting.py (domain wrappers call them), and benchmarks import only tests/support,
never a test module or a conftest. Each guard is also fed a bad snippet, so it can fail."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HELPER_NAMES = ("refused", "wait_for")


def own_mechanics(text: str) -> list[str]:
    """Functions (not methods) named like a shared helper that poll in a loop or catch a bus refusal themselves."""
    found = []
    tree = ast.parse(text)
    methods = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or id(fn) in methods:
            continue
        if not fn.name.lstrip("_").startswith(HELPER_NAMES):
            continue
        for node in ast.walk(fn):
            raises = isinstance(node, ast.With | ast.AsyncWith) and any(
                "raises(BusError" in ast.unparse(item.context_expr) for item in node.items
            )
            if isinstance(node, ast.While) or raises:
                found.append(fn.name)
                break
    return found


def imported_test_modules(text: str) -> list[str]:
    """Modules under tests/ that are not tests.support, imported by the text."""
    names = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return [n for n in names if n.split(".")[0] == "tests" and not n.startswith("tests.support")]


def test_waiting_and_refusals_are_written_once() -> None:
    offenders = {
        str(p.relative_to(REPO)): found
        for p in sorted((REPO / "tests").rglob("*.py"))
        if "support" not in p.relative_to(REPO / "tests").parts and (found := own_mechanics(p.read_text()))
    }
    assert offenders == {}, f"use tests.support.waiting (eventually, refused): {offenders}"


def test_benchmarks_import_no_test_module() -> None:
    offenders = {
        p.name: found
        for p in sorted((REPO / "benchmarks").glob("*.py"))
        if (found := imported_test_modules(p.read_text()))
    }
    assert offenders == {}, f"move what benchmarks need into tests/support: {offenders}"


def test_the_guards_catch_a_second_definition() -> None:
    loop = "async def wait_for(probe):\n    while not await probe():\n        pass\n"
    catch = "async def refused(c):\n    with pytest.raises(BusError):\n        await c\n"
    method = "class Collector:\n    async def wait_for(self):\n        while True:\n            break\n"
    assert own_mechanics(loop) == ["wait_for"] and own_mechanics(catch) == ["refused"]
    assert own_mechanics(method) == []
    assert imported_test_modules("from tests.gateway.test_play import choose\nimport tests.support.servers\n") == [
        "tests.gateway.test_play"
    ]
