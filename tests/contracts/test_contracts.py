"""The wire contracts: every bus message round-trips JSON, and only felt_contracts defines them."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import felt_contracts
from felt_contracts.base import Event, Message, Reply, Request
from tests.support.schema_strategy import from_schema

REPO = Path(__file__).resolve().parents[2]
CONTRACT_BASES = {"BaseModel", "Message", "Request", "Event", "Reply", "RootModel"}


def contract_models() -> list[type[BaseModel]]:
    """Every concrete model defined in a felt_contracts module."""
    found: dict[str, type[BaseModel]] = {}
    for info in pkgutil.iter_modules(felt_contracts.__path__):
        module = importlib.import_module(f"felt_contracts.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, BaseModel)
                and obj.__module__ == module.__name__
                and obj not in (Message, Request, Event)
            ):
                if not obj.__pydantic_generic_metadata__["parameters"]:
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


MODELS = contract_models()


def test_contracts_exist() -> None:
    assert len(MODELS) >= 3


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.__module__.split('.')[-1]}.{m.__name__}")
@settings(max_examples=20, suppress_health_check=list(HealthCheck), deadline=None)
@given(data=st.data())
def test_every_message_round_trips_json(model: type[BaseModel], data: st.DataObject) -> None:
    """Instances generated from the model's own JSON schema survive dump -> parse unchanged."""
    raw = data.draw(from_schema(model.model_json_schema(by_alias=True)))
    try:
        instance = model.model_validate(raw)
    except ValidationError:
        reject()  # the schema cannot express every validator (e.g. cross-field rules)
    again = model.model_validate_json(instance.model_dump_json())
    assert again == instance
    assert again.model_dump(mode="json") == instance.model_dump(mode="json")


def test_reply_envelope_round_trips() -> None:
    from felt_contracts.errors import ErrorCode
    from felt_contracts.health import HealthStatus

    ok = Reply[HealthStatus].success(HealthStatus(service="x", status="ok", version="1", checks={}))
    assert Reply[HealthStatus].model_validate_json(ok.model_dump_json()) == ok
    bad = Reply.failure(ErrorCode.NOT_FOUND, "no such thing", id="7")
    back = Reply[HealthStatus].model_validate_json(bad.model_dump_json())
    assert back.error is not None and back.error.code is ErrorCode.NOT_FOUND and back.error.details == {"id": "7"}


def _service_files() -> list[Path]:
    return sorted((REPO / "services").rglob("*.py"))


def _bus_model_names(tree: ast.AST) -> set[str]:
    """Names passed as the message model to `responder(...)` / `call(...)` or published."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = node.args
            if fn == "responder" and len(args) >= 3 and isinstance(args[2], ast.Name):
                names.add(args[2].id)
            if fn == "call" and len(args) >= 4 and isinstance(args[3], ast.Name):
                names.add(args[3].id)
            if fn == "call" and len(args) >= 3 and isinstance(args[2], ast.Call) and isinstance(args[2].func, ast.Name):
                names.add(args[2].func.id)
            if fn == "publish" and args and isinstance(args[0], ast.Call) and isinstance(args[0].func, ast.Name):
                names.add(args[0].func.id)
    return names


def _contract_imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("felt_contracts"):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def test_services_define_no_bus_message_models() -> None:
    """A class in a service may not derive from the contract bases, and every model a
    service sends or answers with on the bus is imported from felt_contracts."""
    offenders: list[str] = []
    for path in _service_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        local_classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if bases & {"Message", "Request", "Event", "Reply"}:
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name} derives from a contract base")
        imported = _contract_imports(tree)
        for name in _bus_model_names(tree):
            if name in local_classes or (name[:1].isupper() and name not in imported):
                offenders.append(f"{path.relative_to(REPO)}: bus model {name} is not imported from felt_contracts")
    assert offenders == []


def test_the_guard_catches_a_local_bus_model() -> None:
    """The check above must be able to fail: feed it a service that breaks the rule."""
    bad = ast.parse(
        "from pydantic import BaseModel\n"
        "class Sneaky(BaseModel):\n    x: int\n"
        "@responder(broker, 'felt.x', Sneaky, queue='q')\nasync def h(r): ...\n"
    )
    local = {n.name for n in ast.walk(bad) if isinstance(n, ast.ClassDef)}
    assert _bus_model_names(bad) & local == {"Sneaky"}


def test_subjects_are_unique() -> None:
    from felt_contracts import subjects

    values = [
        v
        for k, v in vars(subjects).items()
        if k.isupper() and isinstance(v, str) and not k.endswith(("_QUEUE", "_STREAM"))
    ]
    assert len(values) == len(set(values))


def test_a_hand_id_names_its_table_and_only_a_well_formed_one_does() -> None:
    from felt_contracts.table import hand_id_for, table_of_hand

    hid = hand_id_for("nlhe-1-a", "0123456789abcdef")
    assert hid == "nlhe-1-a-0123456789abcdef" and table_of_hand(hid) == "nlhe-1-a"
    for other in ("nlhe-1-a", "x-0123456789ABCDEF", "-0123456789abcdef", "Bad Table-0123456789abcdef", "h1"):
        assert table_of_hand(other) is None
    with pytest.raises(ValueError):
        hand_id_for("t", "xyz")
    with pytest.raises(ValueError):
        hand_id_for("t", "0123456789abcdef\n")
    assert table_of_hand("nlhe-1-a-0123456789abcdef\n") is None


def test_a_table_id_is_the_whole_text_a_final_newline_included() -> None:
    """Python's `$` lets a pattern match before a final newline: "3\\n" once passed the gateway's
    check and reached NATS as a bad subject (a 500 the REST fuzzer found)."""
    from pydantic import TypeAdapter, ValidationError

    from felt_contracts.table import WellFormedTableId, is_table_id

    assert is_table_id("nlhe-1-a") and is_table_id("3")
    for bad in ("3\n", "3\r", "nlhe-1-a\n", "", "A", "-a", "a b", "a" * 65):
        assert not is_table_id(bad), repr(bad)
        with pytest.raises(ValidationError):
            TypeAdapter(WellFormedTableId).validate_python(bad)
