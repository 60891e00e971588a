"""PHH export: text format, helpers, redaction, and replay by PokerKit."""

from __future__ import annotations

import tomllib
from dataclasses import replace

import pytest

from felt_engine.phh import (
    PhhError,
    PhhHand,
    bet_raise_to,
    check_call,
    deal_board,
    deal_hole,
    discard,
    draw_round,
    fold,
    muck,
    redact,
    show,
    to_phh,
    variant_for,
)


def ante_hand() -> PhhHand:
    """ante-nl-1: three players, p3 all-in short; side pot to p2."""
    return PhhHand(
        variant="NT",
        antes=[10, 10, 10],
        blinds=[0, 0, 0],
        min_bet=10,
        starting_stacks=[200, 200, 50],
        players=["alice", "bob", "carol"],
        actions=[
            deal_hole(0, "AsKd"),
            deal_hole(1, ["2c", "2d"]),
            deal_hole(2, "QhQs"),
            bet_raise_to(0, 40),
            check_call(1),
            check_call(2),
            deal_board("7h8h9c"),
            bet_raise_to(0, 100),
            check_call(1),
            deal_board("Td"),
            deal_board("3s"),
            show(0, "AsKd"),
            show(1, "2c2d"),
            show(2, "QhQs"),
        ],
        extra={
            "hand": "h-42",
            "table": "t-7",
            "seats": [3, 5, 8],
            "rulesVersion": "ante-nl-1",
            "finishing_stacks": [50, 250, 150],
            "note": None,
        },
    )


# ---- text format --------------------------------------------------------------------


def test_output_parses_with_tomllib_and_round_trips():
    h = ante_hand()
    data = tomllib.loads(to_phh(h))
    assert data == {
        "variant": "NT",
        "antes": [10, 10, 10],
        "blinds_or_straddles": [0, 0, 0],
        "min_bet": 10,
        "starting_stacks": [200, 200, 50],
        "players": ["alice", "bob", "carol"],
        "actions": h.actions,
        "hand": "h-42",
        "table": "t-7",
        "seats": [3, 5, 8],
        "_felt_rulesVersion": "ante-nl-1",
        "finishing_stacks": [50, 250, 150],
    }


def test_extra_fields_standard_kept_user_prefixed_none_dropped():
    text = to_phh(
        replace(ante_hand(), extra={"table": 3, "_mine": {"a": 1, "b": [True]}, "rulesVersion": "nlhe-1", "skip": None})
    )
    data = tomllib.loads(text)
    assert data["table"] == 3
    assert data["_mine"] == {"a": 1, "b": [True]}
    assert data["_felt_rulesVersion"] == "nlhe-1"
    assert "skip" not in data and "_felt_skip" not in data


def test_extra_field_clashes_rejected():
    with pytest.raises(PhhError):
        to_phh(replace(ante_hand(), extra={"variant": "FT"}))
    with pytest.raises(PhhError):
        to_phh(replace(ante_hand(), extra={"x": 1, "_felt_x": 2}))
    with pytest.raises(PhhError):
        to_phh(replace(ante_hand(), extra={"when": object()}))


def test_player_names_are_escaped():
    names = ['quote"d', "back\\slash", "new\nline\t\x7f\x01", "ünï ♠"]
    h = replace(
        ante_hand(),
        players=names + ["x"],
        antes=[0] * 5,
        blinds=[1, 2, 0, 0, 0],
        starting_stacks=[100] * 5,
        actions=[],
        extra={"odd key": "v'"},
    )
    data = tomllib.loads(to_phh(h))
    assert data["players"] == names + ["x"]
    assert data["_felt_odd key"] == "v'"


def test_fixed_limit_writes_small_and_big_bet():
    h = PhhHand("FT", [0, 0], [1, 2], None, [100, 100], ["a", "b"], [], small_bet=2, big_bet=4)
    data = tomllib.loads(to_phh(h))
    assert (data["small_bet"], data["big_bet"]) == (2, 4) and "min_bet" not in data
    with pytest.raises(PhhError):
        to_phh(replace(h, min_bet=2))
    with pytest.raises(PhhError):
        to_phh(replace(h, variant="NT"))


@pytest.mark.parametrize(
    "change",
    [
        {"antes": [10, 10]},
        {"blinds": [0, 0, -1]},
        {"starting_stacks": [200, 200, 0]},
        {"players": ["a"]},
        {"min_bet": None},
        {"actions": ["p1 raise 20"]},
        {"actions": ["p4 cc"]},
        {"actions": ["d dh p9 AsKd"]},
        {"actions": ["d db 1s"]},
    ],
)
def test_invalid_hands_rejected(change):
    with pytest.raises(PhhError):
        to_phh(replace(ante_hand(), **change))


# ---- helpers ------------------------------------------------------------------------


def test_action_helpers_write_phh_notation():
    assert deal_hole(0, "AsKd") == "d dh p1 AsKd"
    assert deal_hole(8, ["Th", "9h"]) == "d dh p9 Th9h"
    assert deal_board(["7h", "8h", "9c"]) == "d db 7h8h9c"
    assert fold(1) == "p2 f"
    assert check_call(2) == "p3 cc"
    assert bet_raise_to(0, 250) == "p1 cbr 250"
    assert show(3, "AsKd") == "p4 sm AsKd"
    assert muck(3) == "p4 sm"
    assert discard(0) == "p1 sd"
    assert discard(0, ["7h", "2c"]) == "p1 sd 7h2c"


def test_draw_round_puts_all_discards_before_replacements():
    assert draw_round([(0, "7h2c", "AsAd"), (1, "", ""), (2, ["3d"], ["Kc"])]) == [
        "p1 sd 7h2c",
        "p2 sd",
        "p3 sd 3d",
        "d dh p1 AsAd",
        "d dh p3 Kc",
    ]
    with pytest.raises(PhhError, match="drew"):
        draw_round([(0, "7h2c", "As")])


@pytest.mark.parametrize(
    "call",
    [
        lambda: deal_hole(-1, "AsKd"),
        lambda: deal_hole(0, "AsK"),
        lambda: deal_hole(0, "AxKd"),
        lambda: deal_board(""),
        lambda: bet_raise_to(0, 0),
        lambda: bet_raise_to(0, 2.5),
        lambda: fold(True),
    ],
)
def test_helpers_reject_bad_input(call):
    with pytest.raises(PhhError):
        call()


def test_variant_for():
    assert variant_for("holdem", "no-limit") == ("NT", {})
    assert variant_for("holdem", "fixed-limit") == ("FT", {})
    assert variant_for("holdem", "pot-limit") == ("NT", {"_felt_betting": "pot-limit"})
    assert variant_for("draw5", "pot-limit") == ("P5CD", {})
    with pytest.raises(PhhError):
        variant_for("stud", "no-limit")


# ---- redaction ----------------------------------------------------------------------


def test_redact_hides_other_hole_cards_keeps_own_and_showdown():
    h = replace(
        ante_hand(),
        actions=[
            deal_hole(0, "AsKd"),
            deal_hole(1, "2c2d"),
            deal_hole(2, "QhQs"),
            fold(2),
            check_call(0) + " # limp",
            check_call(1),
            deal_board("7h8h9c"),
            show(0, "AsKd"),
            muck(1),
        ],
    )
    seen = redact(h, 0).actions
    assert seen[:3] == ["d dh p1 AsKd", "d dh p2 ????", "d dh p3 ????"]
    assert seen[4] == "p1 cc # limp"
    assert seen[6:] == ["d db 7h8h9c", "p1 sm AsKd", "p2 sm"]
    assert redact(h, 2).actions[:3] == ["d dh p1 ????", "d dh p2 ????", "d dh p3 QhQs"]
    assert redact(h, None).actions[:3] == ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????"]
    assert h.actions[1] == "d dh p2 2c2d"  # original untouched


def test_redact_hides_other_players_discards_and_draws():
    actions = [
        deal_hole(0, "7h6c4c3d2c"),
        deal_hole(1, "JsJcJdJhTd"),
        check_call(0),
        check_call(1),
        *draw_round([(0, "7h", "8h"), (1, "", "")]),
    ]
    h = PhhHand("N5CD", [5, 5], [0, 0], 5, [100, 100], ["a", "b"], actions)
    assert redact(h, 1).actions == [
        "d dh p1 ??????????",
        "d dh p2 JsJcJdJhTd",
        "p1 cc",
        "p2 cc",
        "p1 sd ??",
        "p2 sd",
        "d dh p1 ??",
    ]
    assert redact(h, 0).actions == [actions[0], "d dh p2 ??????????", *actions[2:]]
    assert "7h" not in to_phh(redact(h, None))


# ---- PokerKit: an independent engine reads and replays the export ------------------

pokerkit = pytest.importorskip("pokerkit")


def replay(text: str, history_class=None) -> list[int]:
    hh = (history_class or pokerkit.HandHistory).loads(text)
    state = None
    for state in hh:  # noqa: B007 - the last state is the hand's end
        pass
    assert not state.status  # the hand is over
    return list(state.stacks)


def test_pokerkit_replays_ante_hand_with_side_pot():
    h = ante_hand()
    assert replay(to_phh(h)) == h.extra["finishing_stacks"]


def test_pokerkit_replays_spectator_view_to_same_stacks():
    # redacted hole cards are still valid PHH; showdown cards decide the same way
    h = ante_hand()
    assert replay(to_phh(redact(h, None))) == [50, 250, 150]


def test_pokerkit_replays_heads_up_blinds():
    # p1 = big blind (left of button), p2 = button/small blind acts first preflop
    h = PhhHand(
        "NT",
        [0, 0],
        [1, 2],
        2,
        [100, 100],
        ["bb", "btn"],
        [
            deal_hole(0, "AsKd"),
            deal_hole(1, "2c7d"),
            bet_raise_to(1, 6),
            fold(0),
        ],
    )
    assert replay(to_phh(h)) == [98, 102]


def test_pokerkit_replays_blinds_and_antes_split_pot():
    # the Aetolia rules: blinds and antes together; identical straights split the pot
    h = PhhHand(
        "NT",
        [1, 1, 1],
        [5, 10, 0],
        10,
        [300, 300, 300],
        ["sb", "bb", "btn"],
        [
            deal_hole(0, "AsKd"),
            deal_hole(1, "AhKc"),
            deal_hole(2, "2c3c"),
            bet_raise_to(2, 20),
            check_call(0),
            check_call(1),
            deal_board("QhJsTd"),
            check_call(0),
            bet_raise_to(1, 50),
            fold(2),
            check_call(0),
            deal_board("4s"),
            check_call(0),
            check_call(1),
            deal_board("4d"),
            check_call(0),
            check_call(1),
            show(0, "AsKd"),
            show(1, "AhKc"),
        ],
    )
    # pot 163 = 81 + 82; the odd chip goes to p1, the first seat left of the button,
    # exactly as felt_engine.pots settles it
    assert replay(to_phh(h)) == [311, 310, 279]
    from felt_engine.pots import settle

    s = settle({0: 71, 1: 71, 2: 21}, {0, 1}, {0: 1, 1: 1}, [0, 1, 2])
    assert [300 - c + s.payouts[i] for i, c in enumerate([71, 71, 21])] == [311, 310, 279]


def test_pokerkit_replays_fixed_limit():
    v, extra = variant_for("holdem", "fixed-limit")
    h = PhhHand(
        v,
        [0, 0, 0],
        [1, 2, 0],
        None,
        [50, 50, 50],
        ["a", "b", "c"],
        [
            deal_hole(0, "AsAd"),
            deal_hole(1, "KsKd"),
            deal_hole(2, "2c7h"),
            fold(2),
            bet_raise_to(0, 4),
            check_call(1),
            deal_board("3c8d9h"),
            bet_raise_to(0, 2),
            check_call(1),
            deal_board("Js"),
            bet_raise_to(0, 4),
            check_call(1),
            deal_board("Qd"),
            check_call(0),
            check_call(1),
            show(0, "AsAd"),
            show(1, "KsKd"),
        ],
        extra,
        small_bet=2,
        big_bet=4,
    )
    assert replay(to_phh(h)) == [60, 40, 50]


def test_pokerkit_replays_pot_limit_holdem_as_nt():
    v, extra = variant_for("holdem", "pot-limit")
    h = PhhHand(
        v,
        [0, 0],
        [1, 2],
        2,
        [100, 100],
        ["bb", "btn"],
        [
            deal_hole(0, "AsAd"),
            deal_hole(1, "KsKd"),
            bet_raise_to(1, 6),
            check_call(0),
            deal_board("3c8d9h"),
            bet_raise_to(0, 12),
            check_call(1),
            deal_board("Js"),
            check_call(0),
            check_call(1),
            deal_board("Qd"),
            check_call(0),
            check_call(1),
            show(0, "AsAd"),
            show(1, "KsKd"),
        ],
        extra,
    )
    text = to_phh(h)
    assert tomllib.loads(text)["_felt_betting"] == "pot-limit"
    assert replay(text) == [118, 82]


def test_pokerkit_replays_five_card_draw_with_custom_variant():
    # PHH has no five-card draw (high): teach PokerKit Felt's code and replay
    from pokerkit.games import NoLimitPokerMixin, SingleDraw
    from pokerkit.hands import StandardHighHand
    from pokerkit.utilities import Deck

    class NoLimitFiveCardDraw(NoLimitPokerMixin, SingleDraw):
        deck = Deck.STANDARD
        hand_types = (StandardHighHand,)
        hole_dealing_count = 5

    class FeltHistory(pokerkit.HandHistory):
        game_types = {**pokerkit.HandHistory.game_types, "N5CD": NoLimitFiveCardDraw}
        required_field_names = {
            **pokerkit.HandHistory.required_field_names,
            "N5CD": pokerkit.HandHistory.required_field_names["N2L1D"],
        }

    v, _ = variant_for("draw5", "no-limit")
    h = PhhHand(
        v,
        [5, 5],
        [0, 0],
        5,
        [100, 100],
        ["a", "b"],
        [
            deal_hole(0, "7h6c4c3d2c"),
            deal_hole(1, "JsJcJdJhTd"),
            check_call(0),
            check_call(1),
            *draw_round([(0, "7h", "8h"), (1, "", "")]),
            bet_raise_to(0, 10),
            check_call(1),
            show(0, "6c4c3d2c8h"),
            show(1, "JsJcJdJhTd"),
        ],
    )
    assert replay(to_phh(h), FeltHistory) == [85, 115]  # quads beat eight-high
