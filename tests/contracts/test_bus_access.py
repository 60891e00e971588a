"""The permissions generated from the bus declaration (`felt_contracts.access`) say what
docs/operations.md ("Who may say what on the bus") promises, and the declaration names only
subjects of `felt_contracts.subjects`."""

from __future__ import annotations

import json

import pytest

from felt_contracts import access, subjects
from felt_runtime import nats_access


def matches(pattern: str, subject: str) -> bool:
    """NATS subject matching: `*` is one token, a final `>` one or more."""
    p, s = pattern.split("."), subject.split(".")
    for i, token in enumerate(p):
        if token == ">":
            return len(s) > i
        if i >= len(s) or (token != "*" and token != s[i]):
            return False
    return len(p) == len(s)


def may_publish(identity: str, subject: str) -> bool:
    rules = nats_access.permissions(identity)["publish"]
    return any(matches(p, subject) for p in rules.get("allow", [])) and not any(
        matches(p, subject) for p in rules.get("deny", [])
    )


def may_subscribe(identity: str, subject: str) -> bool:
    return any(matches(p, subject) for p in nats_access.permissions(identity)["subscribe"]["allow"])


MONEY = [
    subjects.WALLET_BUY_IN,
    subjects.WALLET_COMMIT,
    subjects.WALLET_SETTLE,
    subjects.WALLET_CANCEL_HAND,
    subjects.WALLET_CANCEL_TABLE,
    subjects.WALLET_CASH_OUT,
]


@pytest.mark.parametrize("subject", MONEY)
def test_only_the_table_asks_the_wallet_to_move_chips(subject: str) -> None:
    assert [i for i in access.IDENTITIES if may_publish(i, subject)] == ["table"]
    assert [i for i in access.IDENTITIES if may_subscribe(i, subject)] == ["wallet"]


@pytest.mark.parametrize(
    "subject", [subjects.WALLET_POOL_ENTRY, subjects.WALLET_POOL_REFUND, subjects.WALLET_POOL_CLOSE]
)
def test_only_the_tournament_service_moves_chips_of_prize_pools(subject: str) -> None:
    assert [i for i in access.IDENTITIES if may_publish(i, subject)] == ["tournament"]
    assert [i for i in access.IDENTITIES if may_subscribe(i, subject)] == ["wallet"]
    assert may_publish(access.OPERATOR, subjects.TOURNAMENT_CREATE) and not may_publish(
        "gateway", subjects.TOURNAMENT_CREATE
    )
    assert may_publish("gateway", subjects.TOURNAMENT_REGISTER) and may_publish("tournament", subjects.LIMITS_CHECK)


def test_only_the_wallet_publishes_transfers_and_only_the_table_table_events() -> None:
    assert [i for i in access.IDENTITIES if may_publish(i, subjects.WALLET_TRANSFER_EVENTS)] == ["wallet"]
    for subject in (subjects.table_public_events("t1"), subjects.table_seat_events("t1", "p1")):
        assert [i for i in access.IDENTITIES if may_publish(i, subject)] == ["table"]
    assert [i for i in access.IDENTITIES if may_publish(i, subjects.table_seat_changes("t1"))] == ["table"]


def test_the_gateway_sends_what_a_clients_request_becomes_and_no_chip_movement() -> None:
    for subject in (
        subjects.table_command("t1"),
        subjects.WALLET_OPEN_ACCOUNT,
        subjects.WALLET_BALANCE,
        subjects.LIMITS_SET_CAP,
        subjects.CHAT_POST,
        subjects.TABLE_CREATE,  # players create (and host) tables
    ):
        assert may_publish("gateway", subject), subject
    for subject in [*MONEY, subjects.TABLE_CLOSE, subjects.LIMITS_CHECK, subjects.TIMER_SCHEDULE]:
        assert not may_publish("gateway", subject), subject


def test_the_bots_serve_their_own_subjects_and_send_nothing() -> None:
    rules = nats_access.permissions("bots")
    assert rules["publish"] == {"deny": [">"]}  # replies only, through `allow_responses`
    assert rules["allow_responses"] is True
    for subject in (subjects.TABLE_MATCH_CREATE, subjects.TABLE_CREATE, subjects.table_command("t1")):
        assert not may_publish("bots", subject), subject
    assert may_publish("gateway", subjects.TABLE_MATCH_CREATE)
    for subject in (subjects.BOTS_MATCH_RESERVE, subjects.BOTS_MATCH_PLAY, subjects.BOTS_MATCH_RELEASE):
        assert may_subscribe("bots", subject) and may_publish("gateway", subject), subject
        assert not may_publish(access.OPERATOR, subject), subject
    assert may_subscribe("bots", subjects.BOTS_ADD) and may_subscribe("bots", subjects.health("bots"))
    assert not may_subscribe("bots", subjects.table_public_events("t1"))


def test_each_identity_reads_only_its_own_replies_and_its_own_streams() -> None:
    for identity in access.IDENTITIES:
        assert may_subscribe(identity, f"_INBOX.{identity}.abc.1")
        others = [o for o in access.IDENTITIES if o != identity]
        assert not any(may_subscribe(identity, f"_INBOX.{o}.abc.1") for o in others)
        assert not may_publish(identity, "_INBOX.anyone.1")
    assert may_publish("limits", f"$JS.API.CONSUMER.MSG.NEXT.{subjects.WALLET_EVENTS_STREAM}.felt-limits")
    assert not may_publish("limits", f"$JS.API.STREAM.DELETE.{subjects.WALLET_EVENTS_STREAM}")
    assert not may_publish("gateway", f"$JS.API.CONSUMER.MSG.NEXT.{subjects.WALLET_EVENTS_STREAM}.felt-limits")
    assert not may_publish("chat", f"$KV.{subjects.TABLE_LEASES_BUCKET}.t1")
    assert may_publish("table", f"$KV.{subjects.TABLE_LEASES_BUCKET}.t1")


def test_the_declaration_names_every_served_subject_of_the_room() -> None:
    """Every constant subject in `subjects` is served or published by someone in the declaration."""
    declared = [s for r in access.REQUESTS for s in r.subjects] + [s for e in access.EVENTS for s in e.subjects]
    constants = [v for k, v in vars(subjects).items() if k.isupper() and isinstance(v, str) and v.startswith("felt.")]
    assert [c for c in constants if not any(matches(d, c) for d in declared)] == []


def test_the_rendered_configuration_reads_every_password_from_the_environment() -> None:
    text = nats_access.render()
    for identity in access.IDENTITIES:
        assert f"${nats_access.password_variable(identity)}" in text
    # the rest is valid JSON once the references are quoted again
    quoted = text
    for identity in access.IDENTITIES:
        var = nats_access.password_variable(identity)
        quoted = quoted.replace(f"${var}", json.dumps(var))
    users = json.loads(quoted.removeprefix("authorization: "))["users"]
    assert [u["user"] for u in users] == list(access.IDENTITIES)
