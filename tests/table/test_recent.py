"""The table's memory of answered commands (felt_table.server.actor.Recent): bounded, kept as text the
garbage collector never walks, and a kept refusal holds no traceback, so the failed handler's
frames are freed and replays stay small."""

from __future__ import annotations

import gc

from felt_contracts.errors import ErrorCode
from felt_contracts.table import Act, TableConfig, TableResult, TableView
from felt_runtime.bus import BusError
from felt_table.server.actor import Recent


def _view(hand_no: int) -> TableView:
    config = TableConfig(
        table_id="t", rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=20, max_buy_in=200
    )
    return TableView(table_id="t", rules_version="nlhe-1", config=config, seq=hand_no, hands_played=hand_no)


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
    (_, kept, _, was_refused) = recent.outcomes["m1"]
    assert was_refused and isinstance(kept, str)  # text: no exception, no traceback kept
    for _ in range(3):  # each replay is raised to its sender: a new exception each time
        again = recent.get("m1", command)
        assert isinstance(again, BusError) and again.__traceback__ is None
        assert (again.code, again.message, again.details) == (
            ErrorCode.CONFLICT,
            "turn 3 is over",
            {"reason": "stale_turn"},
        )
        try:
            raise again
        except BusError:
            pass


def test_only_the_last_size_outcomes_are_kept() -> None:
    recent = Recent(3)
    command = Act(participant_id="p", action="check")
    for i in range(5):
        recent.put(f"m{i}", command, _refusal())
    assert list(recent.outcomes) == ["m2", "m3", "m4"]
    assert recent.get("m0", command) is None


def test_a_kept_result_holds_no_view_and_its_replay_shows_the_table_as_it_is_now() -> None:
    """Views were most of the table service's heap (256 kept results per table): a replay gets
    the first outcome's status, seq and seat with the view of the moment, marked `replayed` (the
    gateway's `Idempotent-Replayed`)."""
    recent = Recent(8)
    command = Act(participant_id="p", action="check")
    first = TableResult(table_id="t", seq=7, seat=2, view=_view(hand_no=1))
    recent.put("m1", command, first)
    (_, kept, had_view, _) = recent.outcomes["m1"]
    assert had_view and TableResult.model_validate_json(kept).view is None
    again = recent.get("m1", command, lambda: _view(hand_no=2))
    assert isinstance(again, TableResult)
    assert (again.seq, again.seat, again.status, again.replayed) == (7, 2, "ok", True)
    assert again.view == _view(hand_no=2)
    # a result that had no view replays without one
    recent.put("m2", command, TableResult(table_id="t", seq=8))
    plain = recent.get("m2", command, lambda: _view(hand_no=3))
    assert isinstance(plain, TableResult) and plain.view is None


def test_kept_outcomes_are_nothing_the_garbage_collector_walks() -> None:
    """Kept as models, 256 outcomes per table were a quarter of the table service's young
    generation at 1,800 seated players (docs/benchmarks.md): each entry must be untracked."""
    recent = Recent(8)
    command = Act(participant_id="p", action="check")
    recent.put("m1", command, TableResult(table_id="t", seq=7, seat=2, view=_view(hand_no=1)))
    recent.put("m2", command, _refusal())
    gc.collect()  # untracks tuples that hold only untracked objects
    for entry in recent.outcomes.values():
        assert not gc.is_tracked(entry) and not any(gc.is_tracked(part) for part in entry)
