"""felt_client's typed models read the gateway's OpenAPI schemas: every field a model declares is
a property of the schema it names, required where the schema requires it, so a field renamed or
removed on the server fails here rather than in an agent's program."""

from __future__ import annotations

import pytest

from felt_client.models import CHECKED, Answer
from felt_gateway.app import make
from felt_runtime.settings import Settings


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict]:
    return make(Settings())[0].openapi()["components"]["schemas"]


@pytest.mark.parametrize("model", CHECKED, ids=lambda m: m.__name__)
def test_each_client_model_reads_its_openapi_schema(schemas, model: type[Answer]) -> None:
    name = next(n for n in (model.SCHEMA, f"{model.SCHEMA}-Output") if n in schemas)
    schema = schemas[name]
    properties, required = schema["properties"], set(schema.get("required", ()))
    for field_name, field in model.model_fields.items():
        alias = field.alias or field_name
        assert alias in properties, f"{model.__name__}.{field_name}: no {alias!r} in {name}"
        if field.is_required():
            assert alias in required, f"{model.__name__}.{field_name} is required, {name}.{alias} is not"
