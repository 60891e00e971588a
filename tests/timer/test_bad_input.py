"""Bad input is refused with a clear code before any state changes."""

from __future__ import annotations

import json

import pytest

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.timer import DeadlineInfo, GetDeadline
from felt_runtime.bus import BusError, call
from tests.timer.conftest import schedule

GOOD = {"owner": "table", "key": "tb1:turn", "kind": "turn", "delay_seconds": 1.0}


async def raw(broker, subject: str, body: bytes | dict) -> dict:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    reply = await broker.request(data, subject, timeout=5)
    return await reply.decode()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"delay_seconds": -1}, "delay_seconds"),
        ({"delay_seconds": 0}, "delay_seconds"),
        ({"delay_seconds": 1e9}, "delay_seconds"),  # huge
        ({"delay_seconds": "soon"}, "delay_seconds"),
        ({"key": ""}, "key"),
        ({"key": "has space"}, "key"),
        ({"key": "k" * 201}, "key"),
        ({"owner": ""}, "owner"),
        ({"owner": "table.*"}, "owner"),  # would be a wildcard subject
        ({"owner": "Table"}, "owner"),
        ({"kind": "coffee"}, "kind"),
        ({"kind": "other", "delay_seconds": None}, ""),  # no default delay for `other`
        ({"kind": "disconnect", "time_bank": {"table_id": "t", "player_id": "p"}}, ""),  # bank only on turns
        (
            {"time_bank": {"table_id": "t", "player_id": "p", "policy": {"initial_seconds": 9, "max_seconds": 1}}},
            "time_bank",
        ),
        ({"time_bank": {"table_id": "t", "player_id": "p", "policy": {"refill_seconds": -1}}}, "time_bank"),
        ({"time_bank": {"table_id": "", "player_id": "p"}}, "time_bank"),
        ({"payload": {"nested": {"no": 1}}}, "payload"),
        ({"payload": {"big": "x" * 5000}}, ""),
        ({"surprise": 1}, "surprise"),
    ],
)
async def test_bad_schedule_is_malformed_and_changes_nothing(timer, broker, owner, change, field) -> None:
    body = {**GOOD, "owner": owner, **change}
    reply = await raw(broker, subjects.TIMER_SCHEDULE, body)
    assert reply["ok"] is False and reply["error"]["code"] == "malformed", reply
    if field:
        assert any(e["loc"][0] == field for e in reply["error"]["details"]["errors"]), reply
    if "key" not in change and "owner" not in change:  # the deadline it named was not set
        info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key=body["key"]), DeadlineInfo)
        assert info.pending is False


@pytest.mark.parametrize(
    "subject",
    [
        subjects.TIMER_SCHEDULE,
        subjects.TIMER_CANCEL,
        subjects.TIMER_GET,
        subjects.TIMER_REFILL_BANKS,
        subjects.TIMER_GET_BANKS,
    ],
)
async def test_unparseable_messages_are_malformed(timer, broker, subject) -> None:
    for body in (b"not json{", b"[]", b"{}"):
        reply = await raw(broker, subject, body)
        assert reply["ok"] is False and reply["error"]["code"] == "malformed", (subject, body, reply)


@pytest.mark.parametrize(
    "body",
    [
        {"table_id": "t", "player_ids": []},
        {"table_id": "t", "player_ids": ["p"] * 21},
        {"table_id": "", "player_ids": ["p"]},
        {"table_id": "t", "player_ids": ["p"], "policy": {"max_seconds": 99999}},
    ],
)
async def test_bad_refill_is_malformed(timer, broker, body) -> None:
    reply = await raw(broker, subjects.TIMER_REFILL_BANKS, body)
    assert reply["ok"] is False and reply["error"]["code"] == "malformed", reply


async def test_cancel_with_empty_key_is_malformed(timer, broker, owner) -> None:
    reply = await raw(broker, subjects.TIMER_CANCEL, {"owner": owner, "key": ""})
    assert reply["error"]["code"] == "malformed"


async def test_reused_message_id_with_other_content_is_conflict(timer, broker, owner) -> None:
    await schedule(broker, owner=owner, key="a", kind="turn", delay_seconds=5, message_id=f"{owner}-m")
    with pytest.raises(BusError) as err:
        await schedule(broker, owner=owner, key="b", kind="turn", delay_seconds=5, message_id=f"{owner}-m")
    assert err.value.code is ErrorCode.CONFLICT
    info = await call(broker, subjects.TIMER_GET, GetDeadline(owner=owner, key="b"), DeadlineInfo)
    assert info.pending is False
