"""The rules documents for agents, one per profile (package data: `<rulesVersion>.md`; every
page but the seed's `nlhe-1` ends with `_common.md`, and every page with `_tables.md`: which
tables allow what)."""

from __future__ import annotations

from functools import cache
from importlib import resources

from felt_engine.profiles import PROFILES

VERSIONS = tuple(PROFILES)
DEFAULT = "nlhe-1"


@cache
def text(version: str) -> str:
    base = resources.files(__name__)
    body = (base / f"{version}.md").read_text(encoding="utf-8")
    if version != DEFAULT:
        body = body.rstrip() + "\n" + (base / "_common.md").read_text(encoding="utf-8")
    return body.rstrip() + "\n" + (base / "_tables.md").read_text(encoding="utf-8")
