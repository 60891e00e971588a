"""Hypothesis strategies from a pydantic model's JSON schema (the subset our contracts use).

Generating from the schema, not from Python types, honours the models' constraints
(lengths, bounds, patterns, enums, discriminated unions)."""

from __future__ import annotations

import math
from datetime import UTC
from typing import Any

from hypothesis import strategies as st

_MAX_INT = 2**53


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    return _strategy(schema, schema.get("$defs", {}))


def _strategy(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in node:
        return st.deferred(lambda: _strategy(defs[node["$ref"].split("/")[-1]], defs))
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return st.one_of([_strategy(option, defs) for option in node[key]])
    if "allOf" in node and len(node["allOf"]) == 1:
        return _strategy(node["allOf"][0], defs)
    kind = node.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**node, "type": k}, defs) for k in kind])
    if kind == "string":
        return _string(node)
    if kind == "integer":
        lo = node.get("minimum", node.get("exclusiveMinimum", -_MAX_INT - 1) + 1)
        hi = node.get("maximum", node.get("exclusiveMaximum", _MAX_INT + 1) - 1)
        return st.integers(lo, hi)
    if kind == "number" and "multipleOf" in node:  # steps from the bounds: e.g. percents to 0.01
        step = node["multipleOf"]
        lo = math.ceil(node.get("minimum", node.get("exclusiveMinimum", -step) + step) / step)
        return st.integers(lo, math.floor(node.get("maximum", _MAX_INT * step) / step)).map(
            lambda n: round(n * step, 9)
        )
    if kind == "number":
        return st.floats(node.get("minimum"), node.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = _strategy(node.get("items", {}), defs) if node.get("items") else st.integers()
        return st.lists(items, min_size=node.get("minItems", 0), max_size=min(node.get("maxItems", 4), 4))
    if kind == "object" or "properties" in node:
        return _object(node, defs)
    return st.one_of(st.none(), st.integers(-100, 100), st.text(max_size=5))


def _string(node: dict[str, Any]) -> st.SearchStrategy[str]:
    lo, hi = node.get("minLength", 0), min(node.get("maxLength", 20), 40)
    if node.get("format") == "date-time":
        return st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat())
    if node.get("format") == "date":
        return st.dates().map(lambda d: d.isoformat())
    if "pattern" in node:
        return st.from_regex(node["pattern"], fullmatch=True).filter(
            lambda s: lo <= len(s) <= node.get("maxLength", 10**9)
        )
    return st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=lo, max_size=max(lo, hi))


def _object(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    props = node.get("properties", {})
    required = set(node.get("required", []))
    if not props:
        extra = node.get("additionalProperties")
        values = _strategy(extra, defs) if isinstance(extra, dict) and extra else st.integers(-5, 5)
        return st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=3)
    fixed = {k: _strategy(v, defs) for k, v in props.items() if k in required}
    optional = {k: _strategy(v, defs) for k, v in props.items() if k not in required}
    return st.fixed_dictionaries(fixed, optional=optional)
