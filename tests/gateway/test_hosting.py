"""Tables players create and host, over REST (docs/gateway.md "Hosted tables"): every profile at
its bounds' extremes (one beyond each refused with the field named), joined by invite code and
played; the host's controls with their refusals; private tables out of the lobby and out of
reach without their code."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from felt_client import FeltClient
from felt_contracts.table import StartMode
from tests.gateway.test_lobby import play_one_hand
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture (skips without a table service)
from tests.support.gateway import new_agent, sign_up

pytestmark = pytest.mark.timeout(300)

API = "/api/v2/poker"


def base(table_id: str) -> str:
    return f"{API}/tables/{table_id}"


async def agent(http) -> dict:
    return await new_agent(http, await sign_up(http))


async def create(http, who: dict, **body: Any):
    return await http.post(f"{API}/tables", json=body, headers=who["headers"])


async def created(http, who: dict, **body: Any) -> dict:
    r = await create(http, who, **body)
    assert r.status_code == 201, r.text
    return r.json()


def refused(r, status: int, code: str, field: str | None = None) -> None:
    assert r.status_code == status and r.json()["code"] == code, r.text
    if field is not None:
        assert r.json()["details"]["field"] == field, r.text


HOLDEM = {"smallBlind": 1, "bigBlind": 1, "minBuyIn": 1, "maxBuyIn": 200}  # 1 big blind .. any
DRAW = {"ante": 4, "minBuyIn": 4, "maxBuyIn": 200}  # 1 .. 50 antes

#: per game: its extremes (played), its other seat extreme, and one value beyond each bound
GAMES: list[tuple[dict, int, list[tuple[dict, str]]]] = [
    (
        {"rulesVersion": "nlhe-1", "seats": 9, **HOLDEM, "turnSeconds": 30},
        2,
        [
            ({"seats": 10}, "seats"),
            ({"seats": 1}, "seats"),
            ({"smallBlind": 0}, "smallBlind"),
            ({"smallBlind": 2}, "bigBlind"),
            ({"minBuyIn": 0}, "minBuyIn"),
            ({"bigBlind": 2, "smallBlind": 1, "minBuyIn": 1}, "minBuyIn"),
            ({"minBuyIn": 201}, "maxBuyIn"),
            ({"turnSeconds": 20}, "turnSeconds"),
            ({"structure": "pot-limit"}, "structure"),
            ({"ante": -1}, "ante"),
        ],
    ),
    (
        {"rulesVersion": "plhe-1", "seats": 9, **HOLDEM, "ante": 1, "turnSeconds": 3600},
        2,
        [({"seats": 10}, "seats"), ({"turnSeconds": 3601}, "turnSeconds"), ({"minBuyIn": 0}, "minBuyIn")],
    ),
    (
        {"rulesVersion": "flhe-1", "seats": 9, **HOLDEM, "turnSeconds": 1},
        2,
        [({"seats": 10}, "seats"), ({"turnSeconds": 0}, "turnSeconds"), ({"structure": "no-limit"}, "structure")],
    ),
    (
        {"rulesVersion": "ante-nl-1", "seats": 10, "ante": 10},
        2,
        [
            ({"seats": 11}, "seats"),
            ({"ante": 11}, "ante"),
            ({"ante": 9}, "ante"),
            ({"minBuyIn": 10, "maxBuyIn": 100}, "minBuyIn"),
            ({"smallBlind": 1, "bigBlind": 2}, "smallBlind"),
            ({"autoRebuy": True}, "autoRebuy"),
        ],
    ),
    *(
        (
            {"rulesVersion": "draw5-1", "structure": structure, "seats": 6, **DRAW, "autoRebuy": True},
            2,
            [
                ({"seats": 7}, "seats"),
                ({"minBuyIn": 3}, "minBuyIn"),
                ({"maxBuyIn": 204}, "maxBuyIn"),
                ({"ante": 0}, "ante"),
                ({"bigBlind": 2}, "bigBlind"),
            ],
        )
        for structure in ("no-limit", "pot-limit", "fixed-limit")
    ),
]


async def close(http, host: dict, table_id: str) -> None:
    r = await http.post(f"{base(table_id)}/host/close", headers=host["headers"])
    assert r.status_code == 200, r.text


async def test_every_profile_at_its_bounds_joined_by_invite_and_played(stack, http, bus) -> None:
    host, guest = await agent(http), await agent(http)
    r = await create(http, host, rulesVersion="nlhe-9", visibility="private")
    refused(r, 400, "malformed", "rulesVersion")
    for extremes, few_seats, beyond in GAMES:
        game = extremes["rulesVersion"]
        for change, field in beyond:
            r = await create(http, host, **{**extremes, **change}, visibility="private")
            negative = any(isinstance(value, int) and value < 0 for value in change.values())
            refused(r, *((422, "validation") if negative else (400, "malformed")), field)
        fewest = await created(http, host, **{**extremes, "seats": few_seats})
        assert fewest["table"]["seats"] == few_seats
        await close(http, host, fewest["table"]["tableId"])
        made = await created(http, host, **extremes, visibility="private", startMode="EXPLICIT")
        table = made["table"]
        assert table["hostId"] == host["participantId"] and table["visibility"] == "private", table
        assert made["inviteUrl"] == f"/t/{made['inviteCode']}"
        for name, value in extremes.items():
            assert table[name] == value, (game, name, table)
        table_id = table["tableId"]
        found = (await http.get(f"{API}/invites/{made['inviteCode']}", headers=guest["headers"])).json()
        assert found["tableId"] == table_id
        for who, code in ((host, None), (guest, made["inviteCode"])):
            r = await http.post(
                f"{base(table_id)}/join", json={"inviteCode": code} if code else {}, headers=who["headers"]
            )
            assert r.status_code == 200 and r.json()["status"] == "seated", (game, r.text)
        cfg = SimpleNamespace(table_id=table_id, start_mode=StartMode.EXPLICIT, rules_version=game)
        hand_id = await play_one_hand(http, cfg, [host, guest])
        hands = (await http.get(f"{base(table_id)}/hands", headers=guest["headers"])).json()["hands"]
        assert [h["status"] for h in hands if h["handId"] == hand_id] == ["settled"], (game, hands)
        await close(http, host, table_id)


async def test_a_private_table_is_out_of_the_lobby_and_out_of_reach_without_its_code(stack, http, bus) -> None:
    host, stranger = await sign_up(http), await sign_up(http)
    made = await created(http, host, rulesVersion="nlhe-1", visibility="private")
    table_id, code = made["table"]["tableId"], made["inviteCode"]
    lobby = (await http.get(f"{API}/tables", headers=stranger["headers"])).json()["tables"]
    assert table_id not in [t["tableId"] for t in lobby]
    refused(await http.get(base(table_id), headers=stranger["headers"]), 404, "not_found")
    refused(await http.post(f"{base(table_id)}/join", json={}, headers=stranger["headers"]), 404, "not_found")
    bad = {"inviteCode": "not-the-code"}
    refused(await http.post(f"{base(table_id)}/join", json=bad, headers=stranger["headers"]), 404, "invite_invalid")
    refused(await http.get(f"{API}/invites/not-the-code", headers=stranger["headers"]), 404, "invite_invalid")
    assert (await http.get(base(table_id), params={"invite": code}, headers=stranger["headers"])).status_code == 200
    # revoked: the code stops working; a new one works, the old one does not
    r = await http.delete(f"{base(table_id)}/invite", headers=host["headers"])
    assert r.status_code == 200 and r.json() == {"revoked": True}, r.text
    refused(await http.get(f"{API}/invites/{code}", headers=stranger["headers"]), 404, "invite_invalid")
    refused(
        await http.post(f"{base(table_id)}/join", json={"inviteCode": code}, headers=stranger["headers"]),
        404,
        "invite_invalid",
    )
    r = await http.post(f"{base(table_id)}/invite", headers=host["headers"])
    assert r.status_code == 200, r.text
    fresh = r.json()["inviteCode"]
    assert fresh != code and r.json()["inviteUrl"] == f"/t/{fresh}"
    r = await http.post(f"{base(table_id)}/join", json={"inviteCode": fresh}, headers=stranger["headers"])
    assert r.status_code == 200 and r.json()["status"] == "seated", r.text
    await close(http, host, table_id)


async def deal(http, table_id: str, a: dict, b: dict) -> None:
    """Both ready up; one of the starts deals (a seat stays ready between hands)."""
    statuses = [
        (await http.post(f"{base(table_id)}/start", headers=who["headers"])).json().get("status") for who in (a, b)
    ]
    assert "started" in statuses, statuses


async def test_host_controls_over_rest(stack, http, bus) -> None:
    host, guest, other = await sign_up(http), await sign_up(http), await sign_up(http)
    made = await created(http, host, rulesVersion="nlhe-1", approval=True, smallBlind=1, bigBlind=2)
    table_id = made["table"]["tableId"]
    assert made["table"]["approval"] and "inviteCode" not in made
    # not the host: refused, nothing changes
    for path, body in (
        ("pause", None),
        ("resume", None),
        ("close", None),
        ("blinds", {"smallBlind": 2, "bigBlind": 4}),
        ("approve", {"participantId": guest["participantId"]}),
        ("decline", {"participantId": guest["participantId"]}),
        ("remove", {"participantId": host["participantId"]}),
    ):
        refused(await http.post(f"{base(table_id)}/host/{path}", json=body, headers=guest["headers"]), 403, "not_host")
    refused(await http.post(f"{base(table_id)}/invite", headers=guest["headers"]), 403, "not_host")
    # approval: the request waits, the host sees it, approves one and declines the other
    r = await http.post(f"{base(table_id)}/join", json={}, headers=host["headers"])
    assert r.json()["status"] == "seated", r.text  # the host needs no approval
    for who in (guest, other):
        r = await http.post(f"{base(table_id)}/join", json={}, headers=who["headers"])
        assert r.status_code == 200 and r.json()["status"] == "pending", r.text
    balance = (await http.get(f"{API}/balance", headers=guest["headers"])).json()
    assert balance["reserved"] == 0  # nothing moves before the approval
    mine = (await http.get(base(table_id), headers=host["headers"])).json()["table"]
    asking = [req["participantId"] for req in mine["host"]["pendingRequests"]]
    assert asking == [guest["participantId"], other["participantId"]]
    assert (await http.get(base(table_id), headers=guest["headers"])).json()["table"]["host"] is None
    r = await http.post(
        f"{base(table_id)}/host/approve", json={"participantId": guest["participantId"]}, headers=host["headers"]
    )
    assert r.status_code == 200 and r.json()["applied"] == "now", r.text
    r = await http.post(
        f"{base(table_id)}/host/decline", json={"participantId": other["participantId"]}, headers=host["headers"]
    )
    assert r.status_code == 200, r.text
    refused(
        await http.post(
            f"{base(table_id)}/host/approve", json={"participantId": other["participantId"]}, headers=host["headers"]
        ),
        404,
        "not_found",
        "participantId",
    )
    view = (await http.get(base(table_id), headers=host["headers"])).json()["table"]
    assert sorted(s["participantId"] for s in view["seats"]) == sorted([host["participantId"], guest["participantId"]])
    assert view["host"]["pendingRequests"] == [] and view["hostId"] == host["participantId"]
    # blinds during a hand: queued, announced, in force from the next hand
    dealt = SimpleNamespace(table_id=table_id, start_mode=StartMode.AUTO, rules_version="nlhe-1")  # started here
    await deal(http, table_id, host, guest)
    refused(
        await http.post(
            f"{base(table_id)}/host/blinds", json={"smallBlind": 0, "bigBlind": 4}, headers=host["headers"]
        ),
        400,
        "malformed",
        "smallBlind",
    )
    r = await http.post(f"{base(table_id)}/host/blinds", json={"smallBlind": 2, "bigBlind": 4}, headers=host["headers"])
    assert r.status_code == 200 and r.json()["applied"] == "next_hand", r.text
    seq = r.json()["seq"]
    assert (await http.get(base(table_id), headers=host["headers"])).json()["table"]["config"]["bigBlind"] == 2
    await play_one_hand(http, dealt, [host, guest])
    events = (await http.get(f"{base(table_id)}/events", params={"after": 0}, headers=guest["headers"])).json()[
        "events"
    ]
    announced = [e for e in events if e["kind"] == "blinds_changed"]
    assert [e["blinds"] for e in announced] == [
        {"smallBlind": 2, "bigBlind": 4, "ante": 0, "anteMode": "each", "fromHand": 2}
    ]
    assert announced[0]["seq"] == seq
    await deal(http, table_id, host, guest)
    await play_one_hand(http, dealt, [host, guest])
    events = (await http.get(f"{base(table_id)}/events", params={"after": seq}, headers=guest["headers"])).json()[
        "events"
    ]
    blinds = [e["amount"] for e in events if e["kind"] == "post_blind"]
    assert sorted(blinds)[-2:] == [2, 4], events
    # who pays the ante: an unknown mode changes nothing; a big-blind ante between hands at once
    blinds_url = f"{base(table_id)}/host/blinds"
    r = await http.post(blinds_url, json={"ante": 2, "anteMode": "dealer"}, headers=host["headers"])
    refused(r, 422, "validation", "anteMode")
    config = (await http.get(base(table_id), headers=host["headers"])).json()["table"]["config"]
    assert (config["ante"], config["anteMode"]) == (0, "each"), config
    r = await http.post(blinds_url, json={"ante": 2, "anteMode": "big_blind"}, headers=host["headers"])
    assert r.status_code == 200 and r.json()["applied"] == "now", r.text
    config = (await http.get(base(table_id), headers=host["headers"])).json()["table"]["config"]
    assert (config["ante"], config["anteMode"]) == (2, "big_blind"), config
    # pause: no hand is dealt until resumed
    r = await http.post(f"{base(table_id)}/host/pause", headers=host["headers"])
    assert r.json()["applied"] == "now", r.text
    await http.post(f"{base(table_id)}/start", headers=host["headers"])
    r = await http.post(f"{base(table_id)}/start", headers=guest["headers"])
    refused(r, 503, "unavailable")
    assert (await http.get(f"{API}/tables", headers=other["headers"])).json()["tables"]
    lobby = {t["tableId"]: t for t in (await http.get(f"{API}/tables", headers=other["headers"])).json()["tables"]}
    assert lobby[table_id]["paused"] is True
    assert (await http.post(f"{base(table_id)}/host/resume", headers=host["headers"])).status_code == 200
    # remove: cashed out once, cannot come back (approval or not) until a new invite
    r = await http.post(
        f"{base(table_id)}/host/remove", json={"participantId": guest["participantId"]}, headers=host["headers"]
    )
    assert r.status_code == 200 and r.json()["applied"] == "now", r.text
    b = (await http.get(f"{API}/balance", headers=guest["headers"])).json()
    assert (b["reserved"], b["inPlay"]) == (0, 0)
    sessions = (await http.get(f"{API}/sessions", headers=guest["headers"])).json()["sessions"]
    mine = [s for s in sessions if s["tableId"] == table_id]
    assert len(mine) == 1 and mine[0]["status"] == "closed" and b["available"] == 200 + mine[0]["net"]
    r = await http.post(f"{base(table_id)}/join", json={}, headers=guest["headers"])
    assert r.status_code == 403 and r.json()["details"]["reason"] == "removed", r.text
    # close: everyone cashed out, the table gone from the lobby
    await close(http, host, table_id)
    view = (await http.get(base(table_id), headers=host["headers"])).json()["table"]
    assert view["closed"] and view["seats"] == []
    assert table_id not in [
        t["tableId"] for t in (await http.get(f"{API}/tables", headers=other["headers"])).json()["tables"]
    ]
    refused(await http.post(f"{base(table_id)}/host/pause", headers=host["headers"]), 409, "table_closed")


async def test_an_owner_hosts_a_bounded_number_of_open_tables_and_a_retried_create_makes_one(stack, http, bus) -> None:
    host = await sign_up(http)
    key = {"Idempotency-Key": "create-1"}
    first = await http.post(f"{API}/tables", json={"rulesVersion": "flhe-1"}, headers=host["headers"] | key)
    again = await http.post(f"{API}/tables", json={"rulesVersion": "flhe-1"}, headers=host["headers"] | key)
    assert first.status_code == 201 and again.status_code == 200 and again.json()["replayed"], again.text
    assert again.json()["table"]["tableId"] == first.json()["table"]["tableId"]
    opened = [first.json()["table"]["tableId"]]
    while True:
        r = await create(http, host, rulesVersion="nlhe-1")
        if r.status_code != 201:
            break
        opened.append(r.json()["table"]["tableId"])
    refused(r, 409, "too_many_tables")
    assert r.json()["details"]["limit"] == len(opened)
    await close(http, host, opened[0])
    await created(http, host, rulesVersion="nlhe-1")
    await asyncio.sleep(0)


async def test_felt_client_creates_hosts_and_joins_by_invite_with_keys_on_its_posts(stack, http, bus) -> None:
    host, guest = await agent(http), await agent(http)
    async with (
        FeltClient(stack.url, api_key=host["apiKey"]) as hosting,
        FeltClient(stack.url, api_key=guest["apiKey"]) as playing,
    ):
        made = await hosting.create_table("nlhe-1", "my-home-game", visibility="private", approval=True, max_hands=5)
        again = await hosting.create_table("nlhe-1", "my-home-game", visibility="private", approval=True, max_hands=5)
        table_id = made["table"]["tableId"]
        assert again["table"]["tableId"] == table_id and again["replayed"] and "inviteCode" not in again
        assert (await playing.invited(made["inviteCode"]))["tableId"] == table_id
        asked = await playing.join(table_id, invite_code=made["inviteCode"])
        assert asked.status == "pending"
        key = "approve-1"
        first = await hosting.host(table_id, "approve", key, participant_id=guest["participantId"])
        assert first == await hosting.host(table_id, "approve", key, participant_id=guest["participantId"])
        assert first["applied"] == "now"
        assert (await hosting.host(table_id, "blinds", small_blind=2, big_blind=4))["applied"] == "now"
        fresh = await hosting.new_invite(table_id)
        assert fresh["inviteCode"] != made["inviteCode"]
        assert (await hosting.revoke_invite(table_id)) == {"revoked": True}
        assert (await hosting.host(table_id, "close"))["applied"] == "now"


async def test_the_bot_routes_are_the_hosts_and_need_the_bots_service(stack, http, bus) -> None:
    """The bots play in tests/bots/test_host_bots.py; this room runs no bots service."""
    host, stranger = await sign_up(http), await sign_up(http)
    table_id = (await created(http, host, rulesVersion="nlhe-1"))["table"]["tableId"]
    bots = f"{base(table_id)}/host/bots"
    refused(await http.post(bots, json={"level": "hard"}, headers=stranger["headers"]), 403, "not_host")
    refused(await http.delete(f"{bots}/someone", headers=stranger["headers"]), 403, "not_host")
    refused(await http.delete(f"{bots}/someone", headers=host["headers"]), 404, "not_found", "participantId")
    r = await http.delete(f"{bots}/{'0' * 201}", headers=host["headers"])  # longer than any participant id
    assert r.status_code == 422 and r.json()["code"] == "validation", r.text
    refused(await http.post(bots, json={"level": "hard"}, headers=host["headers"]), 503, "unavailable")
    await close(http, host, table_id)


async def test_the_games_route_gives_the_bounds_a_create_checks(stack, http, bus) -> None:
    """GET /games (what the browser's New table form is built from) names every profile the
    engine has, and a table one seat beyond its seat bounds is refused as the route says."""
    from felt_engine.profiles import PROFILES

    games = {g["rulesVersion"]: g for g in (await http.get(f"{API}/games")).json()["games"]}
    assert set(games) == set(PROFILES)
    host = await agent(http)
    for version, game in games.items():
        assert (game["minSeats"], game["maxSeats"]) == (PROFILES[version].min_seats, PROFILES[version].max_seats)
        for seats in (game["minSeats"] - 1, game["maxSeats"] + 1):
            r = await create(http, host, name="bounds", rulesVersion=version, seats=seats)
            refused(r, 400, "malformed", "seats")
