"""PHH in: reading files, `felt_engine replay` (JSON out, errors with a code and the line),
round trips of Felt's own exports, and decks built from a history's cards."""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from felt_engine import Deck, TableStakes, apply, get_profile, start_hand
from felt_engine.cards import parse_cards
from felt_engine.cli import main
from felt_engine.dealing import deck_for_hand
from felt_engine.phh import redact, to_phh
from felt_engine.phh_export import from_state
from felt_engine.phh_read import PhhInputError, read_phh
from felt_engine.replay import replay_text
from felt_engine.testing import play, random_action
from felt_table.model import history

FORCED = [  # (rules version, stakes overrides): every profile and every forced-bet option
    ("nlhe-1", {}),
    ("nlhe-1", {"ante": 5}),
    ("nlhe-1", {"ante": 20, "ante_mode": "big_blind"}),
    ("nlhe-1", {"ante": 20, "ante_mode": "button"}),
    ("nlhe-1", {"straddle": 40}),
    ("plhe-1", {"straddle": 40, "ante": 20, "ante_mode": "big_blind"}),
    ("flhe-1", {"ante": 2}),
    ("ante-nl-1", {}),
    ("draw5-1", {"structure": "no-limit"}),
    ("draw5-1", {"structure": "pot-limit"}),
    ("draw5-1", {"structure": "fixed-limit"}),
]


def random_hand(rv: str, overrides: dict, rng: random.Random):
    p = get_profile(rv)
    n = rng.randint(p.min_seats, min(p.max_seats, 6))
    seats = sorted(rng.sample(range(10), n))
    stacks = {s: rng.choice([rng.randint(15, 80), rng.randint(200, 2000)]) for s in seats}
    base = {"ante": 10} if not p.blinds else {"small_blind": 10, "big_blind": 20}
    structure = overrides.get("structure")
    unit = base.get("big_blind", 10)
    buy_ins = (None, None) if p.money == "balance" else (unit, unit * (p.max_buy_in_units or 100))
    stakes = TableStakes(
        base.get("small_blind", 0),
        base.get("big_blind", 0),
        overrides.get("ante", base.get("ante", 0)),
        *buy_ins,
        structure,
        overrides.get("ante_mode", "each"),
        overrides.get("straddle", 0) if n >= 3 else 0,
    )
    if p.short_forced_bet == "exclude":
        stacks = {s: max(v, 10) for s, v in stacks.items()}
    st, _ = start_hand(p, stakes, stacks, rng.choice(seats), Deck.shuffled(rng))
    while not st.is_over:
        st = apply(st, st.actor_seat, random_action(st, rng)).state
    return st


def replay_one(text: str):
    hands = list(replay_text(text))
    assert len(hands) == 1
    return hands[0]


@pytest.mark.parametrize("rv,overrides", FORCED)
def test_every_profile_export_replays_to_the_same_result(rv, overrides):
    rng = random.Random(rv + repr(overrides))
    for _ in range(25):
        st = random_hand(rv, overrides, rng)
        ours = replay_one(to_phh(from_state(st)))
        assert ours.rules_version == rv
        assert ours.state.stacks == st.stacks and ours.state.payouts == st.payouts
        assert ours.seats == list(from_state(st).extra["seats"]) and ours.file_agrees is True


@pytest.mark.parametrize("rv,overrides", [f for f in FORCED if f[0] in ("nlhe-1", "ante-nl-1", "draw5-1")])
def test_spectator_and_player_views_replay_to_the_same_result(rv, overrides):
    """Hidden hands (`??`) that reach the showdown take the cards they show."""
    rng = random.Random("views" + rv + repr(overrides))
    for _ in range(25):
        st = random_hand(rv, overrides, rng)
        for viewer in (None, 0):
            ours = replay_one(to_phh(redact(from_state(st), viewer)))
            assert ours.state.stacks == st.stacks


def test_table_hand_histories_load_back():
    rng = random.Random(5)
    for rv, overrides in FORCED:
        st = random_hand(rv, overrides, rng)
        rec = history.record_of(st, "t-1", "completed", {s: f"p-{s}" for s in st.seats}, "a", "b")
        for viewer in (None, st.seats[0]):
            ours = replay_one(history.to_phh(rec, viewer))
            assert ours.state.stacks == st.stacks and ours.name == st.hand_id


def test_deck_for_hand_deals_the_named_cards_and_fills_the_unknown():
    p = get_profile("nlhe-1")
    holes = [parse_cards("AsKs"), [None, parse_cards("2c")[0]], parse_cards("QdQh")]
    deck = deck_for_hand(p, holes, parse_cards("2h3h4h") + (None,) + parse_cards("9s"))
    st, _ = start_hand(p, TableStakes(1, 2, 0, 2, 200), {1: 100, 2: 100, 3: 100}, 3, deck)
    assert [st.holes[0], st.holes[2]] == [parse_cards("AsKs"), parse_cards("QdQh")]
    assert st.holes[1][1] == parse_cards("2c")[0]
    st = play(st, "3 call", "1 call", "2 check", "1 check", "2 check", "3 check")
    assert st.board[:3] == parse_cards("2h3h4h")  # and the turn, which the history left unknown
    named = set(parse_cards("AsKs2cQdQh2h3h4h9s"))
    assert st.holes[1][0] not in named and st.board[3] not in named and set(st.burns).isdisjoint(named)
    st = play(st, "1 check", "2 check", "3 check")
    assert st.board[4] == parse_cards("9s")[0]
    with pytest.raises(ValueError, match="duplicate"):
        deck_for_hand(p, [parse_cards("AsKs"), parse_cards("AsQs")])


# ---- PokerKit's own notation -----------------------------------------------------------

POKERKIT_STYLE = """\
variant = 'NT'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200, 200, 200]
actions = [
  'd dh p1 ????',  # hidden
  'd dh p2 Th8h',
  'd dh p3 ????',
  'p3 cbr 6',
  'p1 f',
  'p2 cc',
  'd db Jc3d5c',
  'p2 cc',
  'p3 cbr 10',
  'p2 cc',
  'd db 4h',
  'p2 cc',
  'p3 cc',
  'd db Ah',
  'p2 cbr 40',
  'p3 cc',
  'p3 sm AcAd',
  'p2 sm',
]
players = ['Ann', 'Bo', 'Cy']
_where = 'home'
"""


def test_reads_pokerkit_notation_hidden_cards_show_and_muck():
    ours = replay_one(POKERKIT_STYLE)
    # p3's aces (shown) beat p2's eights; p1 lost the small blind
    assert ours.finishing_stacks == [199, 144, 257] and ours.winnings == [0, 0, 113]
    assert ours.players == ["Ann", "Bo", "Cy"] and ours.rules_version == "nlhe-1"


HEADS_UP_SHOW = """\
variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ['d dh p1 AsKs', 'd dh p2 7c2d', 'p2 cc', 'p1 cbr 10', 'p2 f'SHOW]
"""


def test_show_notations_sm_dash_and_sm_cards_agree_with_pokerkit_and_sh_is_refused_by_both():
    """PokerKit 0.7.7 reads `pN sm` (muck), `pN sm -` (show the hand) and `pN sm CARDS` (show
    them); the PHH spec's only show/muck verb is `sm`. There is no `sh`: PokerKit refuses it as an
    invalid action, and so does Felt (`bad_action`, naming the action)."""
    pokerkit = pytest.importorskip("pokerkit")
    for action in ("'p1 sm -'", "'p1 sm AsKs'"):  # a voluntary show once the hand is over
        text = HEADS_UP_SHOW.replace("SHOW", f", {action}")
        ours = replay_one(text)
        *_, final = iter(pokerkit.HandHistory.loads(text))
        assert ours.finishing_stacks == list(final.stacks) == [102, 98]
        assert ours.state.shown[ours.state.seats.index(ours.seats[0])] == parse_cards("AsKs"), action
    mucked = replay_one(HEADS_UP_SHOW.replace("SHOW", ", 'p1 sm'"))  # (PokerKit: no muck after a fold)
    assert mucked.finishing_stacks == [102, 98] and mucked.state.shown == (None, None)
    # at a contested showdown every live hand is revealed whatever the file says (Felt's rule)
    ours = replay_one(POKERKIT_STYLE.replace("'p2 sm'", "'p2 sm -'"))
    assert ours.finishing_stacks == [199, 144, 257]
    with_sh = POKERKIT_STYLE.replace("'p3 sm AcAd'", "'p3 sh AcAd'")
    with pytest.raises(ValueError):  # "Unable to repair the hand history" (its parser: invalid action)
        list(pokerkit.HandHistory.loads(with_sh))
    with pytest.raises(PhhInputError) as e:
        replay_one(with_sh)
    assert e.value.code == "bad_action" and "p3 sh AcAd" in e.value.message


def test_heads_up_blinds_as_pokerkit_writes_them():
    # PokerKit heads-up: p1 (left of the button) is the big blind, p2 the button posts 1
    text = (
        POKERKIT_STYLE.replace("[0, 0, 0]", "[0, 0]")
        .replace("[1, 2, 0]", "[1, 2]")
        .replace("[200, 200, 200]", "[100, 100]")
    )
    text = text[: text.index("actions")] + "actions = ['p2 cc', 'p1 cbr 10', 'p2 f']\n"
    ours = replay_one(text)
    assert ours.finishing_stacks == [102, 98]


def test_a_collection_replays_every_hand_in_order():
    text = "[1]\n" + POKERKIT_STYLE + "\n[two]\n" + POKERKIT_STYLE.replace("'p2 cbr 40'", "'p2 cbr 20'")
    hands = list(replay_text(text))
    assert [h.name for h in hands] == ["1", "two"]
    assert hands[1].finishing_stacks == [199, 164, 237]


def test_a_file_stopping_at_a_contested_showdown_is_completed_by_revealing_live_hands():
    text = POKERKIT_STYLE.replace("  'p3 sm AcAd',\n  'p2 sm',\n", "").replace("'d dh p3 ????'", "'d dh p3 AcAd'")
    ours = replay_one(text)
    assert ours.state.showdown and ours.finishing_stacks == [199, 144, 257]


# ---- the command line ------------------------------------------------------------------


def run_cli(tmp_path: Path, text: str, capsys, name="hand.phh"):
    path = tmp_path / name
    path.write_text(text)
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_cli_prints_one_json_object_per_hand(tmp_path, capsys):
    code, out, err = run_cli(tmp_path, "[1]\n" + POKERKIT_STYLE + "\n[2]\n" + POKERKIT_STYLE, capsys, "h.phhs")
    assert code == 0 and err == ""
    assert out[0] == {
        "hand": "1",
        "rules_version": "nlhe-1",
        "players": ["Ann", "Bo", "Cy"],
        "seats": [1, 2, 3],
        "finishing_stacks": [199, 144, 257],
        "winnings": [0, 0, 113],
        "file_finishing_stacks_agree": None,
    }
    assert len(out) == 2


def test_python_dash_m_and_the_console_script(tmp_path):
    path = tmp_path / "h.phh"
    path.write_text(POKERKIT_STYLE)
    for cmd in ([sys.executable, "-m", "felt_engine"], [str(Path(sysconfig.get_path("scripts")) / "felt-engine")]):
        done = subprocess.run([*cmd, "replay", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and json.loads(done.stdout)["finishing_stacks"] == [199, 144, 257]
    done = subprocess.run(
        [sys.executable, "-m", "felt_engine", "replay", str(path) + ".missing"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "unreadable" in done.stderr and "Traceback" not in done.stderr


BAD = [  # (replace old -> new, code, line of the fault, action index)
    ("variant = 'NT'", "variant = 'NS'", "unknown_variant", 1, None),
    ("_where = 'home'", "colour = 'red'", "unknown_field", 28, None),
    ("'d dh p2 Th8h'", "'d dh p2 Th8x'", "malformed_cards", 9, 1),
    ("'d db 4h'", "'d db Th'", "duplicate_card", 18, 10),
    ("'p3 cbr 10'", "'p3 cbr 1'", "amount_out_of_bounds", 16, 8),
    ("'p1 f'", "'p2 f'", "not_your_turn", 12, 4),
    ("'p2 cbr 40'", "'p2 cbr 4000'", "amount_out_of_bounds", 22, 14),
    ("'p3 cbr 6',", "'p3 raise 6',", "bad_action", 11, 3),
    ("min_bet = 2", "min_bet = 3", "unsupported", 5, None),
    ("starting_stacks = [200, 200, 200]", "starting_stacks = [200, -1, 200]", "bad_field", 6, None),
    ("antes = [0, 0, 0]\n", "", "missing_field", 1, None),
    ("min_bet = 2", "min_bet = = 2", "toml_syntax", 5, None),
    ("  'p2 cbr 40',\n  'p3 cc',\n  'p3 sm AcAd',\n  'p2 sm',\n", "  'p2 cbr 40',\n", "hand_incomplete", 22, 14),
    ("'p2 sm'", "'p2 sm 9h8h'", "card_mismatch", 25, 17),
]


@pytest.mark.parametrize("old,new,code,line,index", BAD, ids=[b[2] + str(i) for i, b in enumerate(BAD)])
def test_bad_input_exits_non_zero_with_code_and_line(tmp_path, capsys, old, new, code, line, index):
    assert old in POKERKIT_STYLE
    text = POKERKIT_STYLE.replace(old, new)
    status, out, err = run_cli(tmp_path, text, capsys)
    assert status == 1 and "Traceback" not in err
    error = out[-1]["error"]
    assert (error["code"], error["line"], error["action_index"]) == (code, line, index)
    assert err.startswith(f"{tmp_path / 'hand.phh'}:{line}: {code}: ")
    if index is not None:
        assert error["action"] == ast.literal_eval(text.splitlines()[line - 1].strip().rstrip(","))
        assert f"[action #{index}: " in err


def test_reader_errors_are_engine_errors_with_stable_codes():
    with pytest.raises(PhhInputError) as e:
        read_phh("[1]\nvariant = 'NT'\n[2]\nx = 1\n")
    assert (
        e.value.code == "missing_field"
        and e.value.hand == "1"
        and e.value.line == 1
        and isinstance(e.value, ValueError)
    )
