"""Forced bets as table options (docs/table.md): a table's `ante_mode` (big-blind or button ante)
and `straddle` are TableConfig data, checked at creation (a bad value names its field), shown in
the lobby and table view, posted by the engine in order with short stacks all-in, and written to
the hand's PHH, which replays to the table's result. Real NATS, Redis, wallet, limits, timer and
table processes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from felt_contracts import subjects
from felt_contracts.table import (
    Act,
    CreateTable,
    GetHand,
    GetView,
    ListHands,
    ListTables,
    TableConfig,
    TableList,
    TableSummary,
)
from felt_engine.replay import replay_text
from felt_runtime.bus import BusError, call

from tests.table.conftest import cmd, create_table, player, uid
from tests.table.test_hosted import host_does, hosted
from tests.table.test_player_options import actor_pid, deal, events, seat

BLINDS = dict(rules_version="nlhe-1", small_blind=1, big_blind=2, min_buy_in=2, max_buy_in=100, seats=6)


async def posts(bus, t):
    """The forced bets of the table's first hand, in posting order: (kind, seat, amount, detail)."""
    return [
        (e.kind, e.seat, e.amount, e.detail) for e in await events(bus, t, 0) if e.kind in ("post_ante", "post_blind")
    ]


async def fold_to_the_end(bus, t):
    """Every actor folds (or checks when free) until the hand is over; the final view."""
    for _ in range(30):
        view = (await cmd(bus, t, GetView())).view
        if view.hand is None or view.hand.phase == "over":
            return view
        pid = actor_pid(view)
        la = (await cmd(bus, t, GetView(viewer=pid))).view.hand.legal_actions
        await cmd(bus, t, Act(participant_id=pid, action="check" if la.check else "fold"))
    raise AssertionError("the hand did not end")


async def phh_of_last_hand(bus, t):
    hand_id = (await cmd(bus, t, ListHands())).hands[0].hand_id
    return (await cmd(bus, t, GetHand(hand_id=hand_id, format="phh"))).hand.phh


def assert_replays_to(text, view):
    """The exported PHH replays (felt_engine.replay) to the stacks the table settled."""
    (replay,) = list(replay_text(text))
    table_stacks = {s.seat: s.stack for s in view.hand.seats}
    assert dict(zip(replay.seats, replay.finishing_stacks)) == table_stacks
    assert replay.file_agrees is not False


async def test_big_blind_ante_is_posted_after_the_blinds_shown_in_the_lobby_and_in_phh(stack, bus):
    t = await create_table(bus, **{**BLINDS, "ante": 2, "ante_mode": "big_blind"})
    listed = await call(bus, subjects.TABLE_LIST, ListTables(), TableList)
    config = next(s.config for s in listed.tables if s.config.table_id == t)
    assert config.ante_mode == "big_blind" and config.straddle is False
    pids = await seat(bus, t, [100, 100, 100])
    view = await deal(bus, t, pids)
    assert view.config.ante_mode == "big_blind"
    sb, bb = view.hand.small_blind_seat, view.hand.big_blind_seat
    assert await posts(bus, t) == [
        ("post_blind", sb, 1, "sb"),
        ("post_blind", bb, 2, "bb"),
        ("post_ante", bb, 2, "bb_ante"),
    ]
    assert view.hand.pot == 5 and view.hand.to_match == 2  # the ante is no bet: the call stays the BB
    final = await fold_to_the_end(bus, t)
    text = await phh_of_last_hand(bus, t)
    # PHH players from the first seat left of the button: p1 = small blind, p2 = big blind
    assert "antes = [0, 2, 0]" in text and "blinds_or_straddles = [1, 2, 0]" in text
    assert_replays_to(text, final)


async def test_button_ante_is_posted_by_the_button_after_the_blinds(stack, bus):
    t = await create_table(bus, **{**BLINDS, "ante": 3, "ante_mode": "button"})
    view = await deal(bus, t, await seat(bus, t, [100, 100, 100]))
    b, sb, bb = view.hand.button, view.hand.small_blind_seat, view.hand.big_blind_seat
    assert await posts(bus, t) == [
        ("post_blind", sb, 1, "sb"),
        ("post_blind", bb, 2, "bb"),
        ("post_ante", b, 3, "button_ante"),
    ]
    final = await fold_to_the_end(bus, t)
    text = await phh_of_last_hand(bus, t)
    assert "antes = [0, 0, 3]" in text
    assert_replays_to(text, final)


async def test_a_short_big_blind_covers_its_blind_before_the_table_ante(stack, bus):
    t = await create_table(bus, **{**BLINDS, "ante": 2, "ante_mode": "big_blind"})
    view = await deal(bus, t, await seat(bus, t, [3, 3, 3]))
    sb, bb = view.hand.small_blind_seat, view.hand.big_blind_seat
    # 3 chips: the big blind (2) first, then what is left of the ante (1), all-in
    assert await posts(bus, t) == [
        ("post_blind", sb, 1, "sb"),
        ("post_blind", bb, 2, "bb"),
        ("post_ante", bb, 1, "bb_ante"),
    ]
    assert next(s for s in view.hand.seats if s.seat == bb).stack == 0
    final = await fold_to_the_end(bus, t)
    assert_replays_to(await phh_of_last_hand(bus, t), final)


async def test_straddle_posts_two_big_blinds_left_of_the_big_blind_and_acts_last(stack, bus):
    t = await create_table(bus, **{**BLINDS, "straddle": True})
    pids = await seat(bus, t, [100, 100, 100, 100])
    view = await deal(bus, t, pids)
    sb, bb = view.hand.small_blind_seat, view.hand.big_blind_seat
    order = sorted(s.seat for s in view.hand.seats)
    straddler = order[(order.index(bb) + 1) % 4]
    assert await posts(bus, t) == [
        ("post_blind", sb, 1, "sb"),
        ("post_blind", bb, 2, "bb"),
        ("post_blind", straddler, 4, "straddle"),
    ]
    assert view.hand.actor_seat_id == order[(order.index(straddler) + 1) % 4]  # left of the straddler
    la = (await cmd(bus, t, GetView(viewer=actor_pid(view)))).view.hand.legal_actions
    assert la.call == 4 and la.raise_to.min == 8  # the straddle is the bet to match; min raise-to 2x
    final = await fold_to_the_end(bus, t)
    text = await phh_of_last_hand(bus, t)
    assert "blinds_or_straddles = [1, 2, 4, 0]" in text
    assert_replays_to(text, final)


async def test_heads_up_the_button_posts_the_small_blind_and_there_is_no_straddle(stack, bus):
    t = await create_table(bus, **{**BLINDS, "ante": 2, "ante_mode": "big_blind", "straddle": True})
    view = await deal(bus, t, await seat(bus, t, [100, 100]))
    b, bb = view.hand.button, view.hand.big_blind_seat
    assert view.hand.small_blind_seat == b and bb != b
    assert await posts(bus, t) == [
        ("post_blind", b, 1, "sb"),
        ("post_blind", bb, 2, "bb"),
        ("post_ante", bb, 2, "bb_ante"),
    ]
    assert view.hand.actor_seat_id == b  # heads-up the button acts first preflop
    final = await fold_to_the_end(bus, t)
    text = await phh_of_last_hand(bus, t)
    # PokerKit reads heads-up lists crossed: the big blind's entries are index 1 (felt_engine.forced)
    assert "antes = [0, 2]" in text and "blinds_or_straddles = [1, 2]" in text
    assert_replays_to(text, final)


DRAW = dict(rules_version="draw5-1", ante=4, min_buy_in=40, max_buy_in=200, seats=6)


@pytest.mark.parametrize(
    ("config", "field", "words"),
    [
        ({**DRAW, "ante_mode": "big_blind"}, "ante_mode", "not allowed for draw5-1"),
        ({**BLINDS, "ante_mode": "button"}, "ante_mode", "needs a positive ante"),
        ({**BLINDS, "rules_version": "flhe-1", "straddle": True}, "straddle", "flhe-1 has no straddle"),
        ({"rules_version": "ante-nl-1", "ante": 10, "seats": 10, "ante_mode": "button"}, "ante_mode", "not allowed"),
        ({**DRAW, "straddle": True}, "straddle", "draw5-1 has no straddle"),
    ],
)
async def test_a_forced_bet_option_the_profile_does_not_allow_is_refused_naming_the_field(
    stack, bus, config, field, words
):
    cfg = TableConfig(table_id=uid("t"), **config)
    with pytest.raises(BusError) as e:
        await call(bus, subjects.TABLE_CREATE, CreateTable(config=cfg), TableSummary)
    assert e.value.code == "malformed" and e.value.details["field"] == field and words in e.value.message
    listed = await call(bus, subjects.TABLE_LIST, ListTables(), TableList)
    assert cfg.table_id not in [s.config.table_id for s in listed.tables]  # nothing created


def test_an_unknown_ante_mode_is_refused_by_the_contract_naming_the_field():
    with pytest.raises(ValidationError) as e:
        TableConfig(table_id="t", **{**BLINDS, "ante": 2, "ante_mode": "everyone"})
    assert e.value.errors()[0]["loc"] == ("ante_mode",)
    old = TableConfig.model_validate({"table_id": "t", **BLINDS})  # additive: old configs still read
    assert old.ante_mode == "each" and old.straddle is False


async def test_a_host_switches_the_ante_mode_from_the_next_hand(stack, bus):
    """A host's `blinds` control sets the ante and who pays it (a tournament level's big-blind
    ante after antes from everyone): the hand running keeps its forced bets, the next posts the
    new ones, and `blinds_changed` says both."""
    host, owner = await player(bus)
    t = await hosted(bus, host, owner, private=False, ante=1)
    pids = await seat(bus, t, [100, 100, 100])
    view = await deal(bus, t, pids)
    assert sorted(p[1:] for p in await posts(bus, t) if p[0] == "post_ante") == [(s, 1, "") for s in (1, 2, 3)]
    change = dict(small_blind=2, big_blind=4, ante=4, ante_mode="big_blind")
    assert await host_does(bus, t, host, "blinds", **change) == "next_hand"
    await fold_to_the_end(bus, t)
    (changed,) = [e.blinds for e in await events(bus, t, 0) if e.kind == "blinds_changed"]
    assert changed is not None and (changed.ante, changed.ante_mode, changed.from_hand) == (4, "big_blind", 2)
    after = max(e.seq for e in await events(bus, t, 0))
    view = await deal(bus, t, pids)
    assert view.config.ante_mode == "big_blind"
    posted = [(e.kind, e.seat, e.amount, e.detail) for e in await events(bus, t, after) if e.kind.startswith("post_")]
    bb = view.hand.big_blind_seat
    assert [p for p in posted if p[0] == "post_ante"] == [("post_ante", bb, 4, "bb_ante")], posted
