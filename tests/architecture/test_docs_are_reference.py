"""The docs and the code's comments describe what is, not how it came to be: no rule document named
by its number (docs/rules.md "Sources" names them), no issue numbers, no diary of the work (which
session or machine measured what), and in the code no measurement tied to a day or a load level.
docs/benchmarks.md is a reference: short, and every table says when it was measured and by what
command. Each pattern is also fed the phrases it must catch and the ones it must leave alone."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CODE = ("libs", "services", "tools", "benchmarks", "deploy", "Makefile", "pyproject.toml", "docker-compose.yml")
DOCS = ("docs", "README.md")
TEXT = {".py", ".md", ".txt", ".json", ".yaml", ".yml", ".toml", ".js", ".html", ".css", ".ini", ".cfg", ""}
BENCHMARKS = REPO / "docs" / "benchmarks.md"
MAX_LINES = 400

ORDINAL = "third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
#: everywhere: a rule document by its number, an issue by its number, the diary of the work
ANYWHERE = {
    "a rule document by its number": re.compile(r"\bseeds?[ _-]?0\d\d\b", re.I),
    "an issue number": re.compile(r"\bissues? ?#?\d+\b", re.I),
    "a work session or its machine": re.compile(
        rf"\b(?:{ORDINAL}) (?:session|machine)\b|\b(?:first|second) session\b|\bsession's machine\b", re.I
    ),
    "this run or branch": re.compile(r"\bthis (?:run|branch)\b", re.I),
    "before or after a change": re.compile(r"\b(?:before|after|since) this (?:change|fix|cut)\b", re.I),
}
#: in the code only: a measurement tied to a day or to a load level of a benchmark
IN_CODE = {
    "a date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "a load level": re.compile(r"\bat [\d,.]+ seated\b|\b\d[\d,]* seated (?:players|agents)\b", re.I),
}
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
COMMAND = re.compile(r"`(?:[A-Z][A-Z0-9_]*=\S+ )*(?:\.venv/bin/python|python -m|make) [^`]+`")
TABLE_RULE = re.compile(r"^\|(?: *:?-+:? *\|)+$", re.M)
HEADING = re.compile(r"^#{2,6} .*$", re.M)


def files(roots: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for root in roots:
        path = REPO / root
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        out += [
            p
            for p in found
            if p.suffix in TEXT and not {"__pycache__", "node_modules"} & set(p.parts) and p.stat().st_size < 2_000_000
        ]
    return out


def findings(paths: list[Path], patterns: dict[str, re.Pattern[str]]) -> list[str]:
    out = []
    for path in paths:
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            out += [
                f"{path.relative_to(REPO)}:{n}: {what}: {line.strip()[:120]}"
                for what, p in patterns.items()
                if p.search(line)
            ]
    return out


def table_sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of every section of a markdown page that holds a table."""
    starts = [m.start() for m in HEADING.finditer(text)] + [len(text)]
    sections = [text[a:b] for a, b in zip(starts, starts[1:], strict=False)]
    return [(s.splitlines()[0], s) for s in sections if TABLE_RULE.search(s)]


def test_code_and_docs_name_no_seed_issue_or_session() -> None:
    assert findings(files(CODE + DOCS), ANYWHERE) == []


def test_code_ties_no_measurement_to_a_day_or_a_load_level() -> None:
    assert findings(files(CODE), IN_CODE) == []


def test_benchmarks_page_is_short_and_every_table_is_dated_with_its_command() -> None:
    text = BENCHMARKS.read_text()
    assert len(text.splitlines()) < MAX_LINES
    sections = table_sections(text)
    assert len(sections) >= 10
    undated = [h for h, body in sections if not DATE.search(body)]
    without_command = [h for h, body in sections if not COMMAND.search(body)]
    assert (undated, without_command) == ([], [])


def test_the_benchmarks_that_write_the_page_write_a_dated_block_with_its_command() -> None:
    spec = importlib.util.spec_from_file_location("docs_block", REPO / "benchmarks" / "docs_block.py")
    assert spec and spec.loader
    docs_block = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs_block)
    stamp = docs_block.stamp(".venv/bin/python benchmarks/bench_table.py")
    assert DATE.search(stamp) and COMMAND.search(stamp)
    text = BENCHMARKS.read_text()
    for name in ("bench_table", "bench_gateway"):
        assert text.index(f"<!-- {name} -->\n") < text.index(f"<!-- /{name} -->")


@pytest.mark.parametrize(
    ("line", "caught"),
    [
        ("The public OpenAPI description says (seed 004).", True),
        ("the seed-002 checkboxes", True),
        ("Seeds 000, 004: 30 s", True),
        ("Until issue 14 the stream captured", True),
        ("(docs/benchmarks.md, tenth session)", True),
        ("Where the goals stand on the ninth machine", True),
        ("the second session's figures", True),
        ("the eighth session's machine", True),
        ("fixed after this run", True),
        ("the p99 before this change", True),
        ("reshuffled by a seed the caller passes", False),
        ("--seed 7, seed S", False),
        ("reserved: int  # this session's share of reserved exposure", False),
        ("escrow: int  # the hand's escrow after this commit", False),
        ("one active table session per participant", False),
        ("a replica on a second machine", False),
    ],
)
def test_the_history_patterns_catch_what_they_must_and_leave_the_rest(line: str, caught: bool) -> None:
    assert any(p.search(line) for p in ANYWHERE.values()) is caught


@pytest.mark.parametrize(
    ("line", "caught"),
    [
        ("# 2.7% of the gateway's busy samples at 720 seated", True),
        ("to 1.6 GB at 2,400 seated players", True),
        ("measured on 2026-12-06 with two machines", True),
        ("a seated participant starts the hand", False),
        ("if exc.code == 'already_seated':", False),
    ],
)
def test_the_code_patterns_catch_what_they_must_and_leave_the_rest(line: str, caught: bool) -> None:
    assert any(p.search(line) for p in IN_CODE.values()) is caught


def test_a_page_with_an_undated_table_is_found() -> None:
    page = "## A\n\ntext\n\n| a | b |\n|---|---:|\n| 1 | 2 |\n\n## B\n\nno table\n"
    assert [h for h, body in table_sections(page) if not DATE.search(body)] == ["## A"]
