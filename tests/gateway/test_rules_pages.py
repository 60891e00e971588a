"""The rules pages for agents say what the server does: which tables of the default lobby allow
what, no games Felt does not have, top-ups only where a table allows them."""

from __future__ import annotations

import re

import pytest

from pydantic.alias_generators import to_camel

from felt_contracts.table import TableConfig
from felt_gateway import rules
from felt_table.model.lobby import DEFAULT_TABLES
from felt_table.settings import TableSettings

ROW = re.compile(r"^\| `([a-z0-9_-]+)` \| `([a-z0-9-]+)` \| `([A-Z_]+)` \| (explicit|auto) \| (yes|no) \|$", re.M)


@pytest.mark.parametrize("version", rules.VERSIONS)
def test_every_page_lists_the_default_lobby_as_it_is(version: str) -> None:
    listed = {m[0]: m[1:] for m in ROW.findall(rules.text(version))}
    lobby = {
        t.table_id: (t.rules_version, t.admission.value, t.start_mode.value, "yes" if t.auto_rebuy else "no")
        for t in DEFAULT_TABLES
    }
    assert listed == lobby


@pytest.mark.parametrize("version", rules.VERSIONS)
def test_no_page_promises_what_the_server_does_not_do(version: str) -> None:
    text = rules.text(version).lower()
    assert "blackjack" not in text and "coinflip" not in text
    assert "no automatic top-ups or" not in text  # tables with auto-rebuy exist: say where
    assert "autorebuy" in text.replace("`", "").replace("-", "")


def test_every_page_states_the_absent_player_settings_the_table_uses() -> None:
    settings = TableSettings()
    words = {1: "one", 2: "two", 3: "three"}
    for version in rules.VERSIONS:
        text = rules.text(version)
        assert f"when {words[settings.absent_timeouts]} of your turns in a row time out" in text
        assert f"after {settings.sit_out_leave_seconds / 60:g} minutes sat out" in text


def test_every_page_names_the_room_limits_the_config_has() -> None:
    for version in rules.VERSIONS:
        text = rules.text(version)
        for name in ("max_hands", "closes_at", "auto_rebuy", "start_mode", "admission", "ante_mode", "straddle"):
            assert name in TableConfig.model_fields and f"`{to_camel(name)}`" in text, (version, name)


def test_the_ante_nl_1_page_reads_bet_add_as_the_engine_computes_it() -> None:
    """The page's worked example (a bet of 10, a raise to 30) is what the engine answers: the
    street total `raiseTo.min` and the add-now `betAdd.min` the first bettor may send."""
    from felt_engine.betting import from_add_now
    from felt_engine.hand import apply, legal_actions
    from felt_engine.testing import new_hand, play

    st = play(new_hand("ante-nl-1", {0: 500, 1: 500, 2: 500}, button=0), "1 bet 10", "2 raiseTo 30", "0 call")
    la = legal_actions(st, 1).to_dict()
    text = rules.text("ante-nl-1")
    assert (
        f"after a bet of 10 and a raise to 30, the first bettor sees `raiseTo.min` {la['raiseTo']['min']} "
        f"and `betAdd.min` {la['betAdd']['min']}"
    ) in text
    sent = re.search(r'`\{"type":"bet","amount":(\d+)\}` raises to (\d+)', text)
    assert sent and int(sent[1]) == la["betAdd"]["min"]
    assert apply(st, 1, from_add_now(st, 1, "bet", int(sent[1]))).state.bets[1] == int(sent[2])
