"""Every `# noqa` and `# type: ignore` says why on its own line.

ruff (RUF100) fails on a `# noqa` that suppresses nothing and mypy (`warn_unused_ignores`) on a
`# type: ignore` that ignores nothing; this guard adds the reason: a marker is a decision, and
the next reader should not have to guess it."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("libs", "services", "tests", "benchmarks")
#: a marker, its codes, then " - " (noqa) or "  # " (type: ignore) and a reason of a few words
MARKER = re.compile(r"#\s*(noqa|type:\s*ignore)\b")
REASONED = re.compile(r"#\s*(noqa:\s*[A-Z0-9, ]+\s+-\s+\S.{3,}|type:\s*ignore\[[a-z-, ]+\]\s+#\s*\S.{3,})$")


def unexplained(text: str) -> list[int]:
    """Lines of `text` with a marker that gives no reason."""
    lines = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        found = MARKER.search(tok.string) if tok.type == tokenize.COMMENT else None
        if found and not REASONED.search(tok.string[found.start() :]):
            lines.append(tok.start[0])
    return lines


def test_every_marker_gives_its_reason() -> None:
    offenders = [
        f"{p.relative_to(REPO)}:{line}"
        for root in ROOTS
        for p in sorted((REPO / root).rglob("*.py"))
        for line in unexplained(p.read_text())
    ]
    assert offenders == []


def test_the_guard_tells_a_bare_marker_from_an_explained_one() -> None:
    assert unexplained("import x  # noqa: F401\n") == [1]
    assert unexplained("x = f()  # type: ignore[arg-type]\n") == [1]
    assert unexplained("x = f()  # type: ignore\n") == [1]
    assert unexplained("import x  # noqa: F401 - re-exported for the fixtures\n") == []
    assert unexplained("x = f()  # type: ignore[arg-type]  # the stub is wrong about floats\n") == []
    assert unexplained('s = "# noqa"\n') == []
