"""A route that answers one contract model returns it as it is and FastAPI writes it through the
model's camelCase twin (`schemas.twin`, pydantic's alias generation); frames and feeds are
written by `schemas.camel`. Both must give the same JSON for every such model, with every
field filled (nested models, lists, dicts, enums, datetimes, dates)."""

from __future__ import annotations

import datetime as dt
import enum
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel

from felt_contracts.chat import ChatPosted
from felt_contracts.limits import CapChange, FreezeState, LimitsState
from felt_contracts.table import HandHistory
from felt_contracts.wallet import Balance, SessionHistory
from felt_gateway.schemas import camel, twin

ROUTED = [HandHistory, ChatPosted, Balance, SessionHistory, LimitsState, CapChange, FreezeState]


def sample(annotation: Any, depth: int = 0) -> Any:
    """A value of `annotation` with every optional part present (the first non-None branch)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return sample(args[0], depth)
    if origin in (Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)), depth)
    if origin is Literal:
        return args[0]
    if origin in (list, tuple):
        return [sample(args[0], depth + 1)] if depth < 4 else []
    if origin is dict:
        return {sample(args[0], depth + 1): sample(args[1], depth + 1)} if depth < 4 else {}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {name: sample(f.annotation, depth + 1) for name, f in annotation.model_fields.items()}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return list(annotation)[-1].value
    values = {bool: True, int: 7, float: 1.5, str: "s1", dt.date: dt.date(2026, 12, 7)}
    if annotation is dt.datetime:
        return dt.datetime(2026, 12, 7, 12, 30, 1, 250, tzinfo=dt.UTC)
    return values[annotation]


@pytest.mark.parametrize("model", ROUTED, ids=lambda m: m.__name__)
async def test_a_contract_model_returned_by_a_route_is_written_as_camel_writes_it(model: type[BaseModel]) -> None:
    value = model.model_validate(sample(model))
    app = FastAPI()
    app.get("/as-is", response_model=twin(model))(lambda: value)
    app.get("/camel", response_model=twin(model))(lambda: camel(value))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        as_is, walked = (await client.get("/as-is")).json(), (await client.get("/camel")).json()
    assert as_is == walked
