"""The table's deadlines as models: the timer echoes their payload, the table parses it back."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from felt_contracts.deadlines import (
    TABLE_DEADLINE,
    AbsentDeadline,
    ClosesAtDeadline,
    GraceDeadline,
    IntermissionDeadline,
    TurnDeadline,
)
from felt_contracts.timer import DeadlineKind, ScheduleDeadline

#: what the table sent as payloads before they were models (and what Redis may still hold)
BEFORE = [
    ({"table_id": "t", "k": "turn", "h": "t:1", "turn": 3, "seat": 2}, TurnDeadline, "turn", DeadlineKind.TURN),
    ({"table_id": "t", "k": "grace", "p": "p1", "e": 4}, GraceDeadline, "grace:p1", DeadlineKind.DISCONNECT),
    ({"table_id": "t", "k": "absent", "p": "p1", "e": 1}, AbsentDeadline, "absent:p1", DeadlineKind.OTHER),
    ({"table_id": "t", "k": "intermission", "e": 7}, IntermissionDeadline, "intermission", DeadlineKind.INTERMISSION),
    ({"table_id": "t", "k": "closes_at"}, ClosesAtDeadline, "closes_at", DeadlineKind.OTHER),
]


@pytest.mark.parametrize(("payload", "model", "key", "kind"), BEFORE)
def test_a_payload_parses_into_its_deadline_and_dumps_back_unchanged(payload, model, key, kind) -> None:
    deadline = TABLE_DEADLINE.validate_python(payload)
    assert type(deadline) is model and deadline.key == key and deadline.timer_kind is kind
    assert deadline.payload() == payload
    ScheduleDeadline(owner="table", key=f"t:{key}", kind=kind, delay_seconds=1, payload=deadline.payload())


def test_fields_are_named_in_code_and_short_on_the_bus() -> None:
    turn = TurnDeadline(table_id="t", hand_id="t:1", turn=3, seat=2)
    assert turn.payload() == {"table_id": "t", "k": "turn", "h": "t:1", "turn": 3, "seat": 2}
    assert GraceDeadline(table_id="t", participant_id="p1", epoch=4).payload()["p"] == "p1"


@pytest.mark.parametrize(
    "payload",
    [
        {"table_id": "t", "k": "nap"},  # a kind the table never sets
        {"table_id": "t", "k": "turn", "h": "t:1", "turn": 3},  # no seat
        {"k": "closes_at"},  # no table
        {"table_id": "t", "k": "grace", "p": "p1", "e": 4, "x": 1},  # an unknown key
    ],
)
def test_a_payload_the_table_did_not_send_is_refused(payload) -> None:
    with pytest.raises(ValidationError):
        TABLE_DEADLINE.validate_python(payload)
