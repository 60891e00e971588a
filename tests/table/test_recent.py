"""The table's memory of answered commands (felt_table.actor.Recent): bounded, and a kept
refusal holds no traceback, so the failed handler's frames are freed and replays stay small."""

from __future__ import annotations

from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act
from felt_runtime.bus import BusError
from felt_table.actor import Recent


def _refusal() -> BusError:
    try:
        raise BusError(ErrorCode.CONFLICT, "turn 3 is over", reason="stale_turn")
    except BusError as exc:
        return exc


def test_a_kept_refusal_holds_no_traceback_and_replays_as_it_was() -> None:
    recent = Recent(8)
    command = Act(participant_id="p", action="check")
    refused = _refusal()
    assert refused.__traceback__ is not None
    recent.put("m1", command, refused)
    (_, kept) = recent.outcomes["m1"]
    assert isinstance(kept, BusError) and kept.__traceback__ is None
    for _ in range(3):  # each replay is raised to its sender: the kept one stays bare
        again = recent.get("m1", command)
        assert isinstance(again, BusError)
        assert (again.code, again.message, again.details) == (
            ErrorCode.CONFLICT,
            "turn 3 is over",
            {"reason": "stale_turn"},
        )
        try:
            raise again
        except BusError:
            pass
    assert recent.outcomes["m1"][1].__traceback__ is None


def test_only_the_last_size_outcomes_are_kept() -> None:
    recent = Recent(3)
    command = Act(participant_id="p", action="check")
    for i in range(5):
        recent.put(f"m{i}", command, _refusal())
    assert list(recent.outcomes) == ["m2", "m3", "m4"]
    assert recent.get("m0", command) is None
