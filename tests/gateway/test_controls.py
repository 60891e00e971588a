"""Controls the table has, reached by clients over REST and the WebSocket alike: sit out / sit
in, voluntary show after the hand (the Texas Hold'em rules), auto-rebuy on/off — with the view fields a
client needs for them, the events everyone sees, and refusals with stable codes that change
nothing."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from tests.support.gateway import sign_up
from tests.gateway.test_play import bus  # noqa: F401 - the `bus` fixture
from tests.support.gateway import create_table

pytestmark = pytest.mark.timeout(120)


def base(table_id: str) -> str:
    return f"/api/v2/poker/tables/{table_id}"


async def table_view(http, table_id: str, who: dict) -> dict:
    r = await http.get(base(table_id), headers=who["headers"])
    assert r.status_code == 200, r.text
    return r.json()["table"]


async def seated_pair(http, bus, **cfg) -> tuple[str, dict, dict]:
    table_id = await create_table(bus, **cfg)
    a, b = await sign_up(http), await sign_up(http)
    for p in (a, b):
        r = await http.post(f"{base(table_id)}/join", json={}, headers=p["headers"])
        assert r.status_code == 200, r.text
    return table_id, a, b


async def start(http, table_id: str, a: dict, b: dict) -> dict:
    r = await http.post(f"{base(table_id)}/start", headers=a["headers"])  # ready; starts if b already is
    if r.status_code != 200:
        r = await http.post(f"{base(table_id)}/start", headers=b["headers"])
    assert r.status_code == 200 and r.json()["status"] == "started", r.text
    return (await table_view(http, table_id, a))["hand"]


async def fold_win(http, table_id: str, a: dict, b: dict) -> tuple[dict, dict, str]:
    """Start a heads-up hand and let the first actor fold: (winner, folder, hand id)."""
    hand = await start(http, table_id, a, b)
    view_a = await table_view(http, table_id, a)
    folder, winner = (a, b) if view_a["yourSeatId"] == hand["actorSeatId"] else (b, a)
    r = await http.post(
        f"{base(table_id)}/actions",
        json={"type": "fold", "handId": hand["handId"], "turnId": hand["turnId"]},
        headers=folder["headers"],
    )
    assert r.status_code == 200, r.text
    assert (await table_view(http, table_id, winner))["hand"]["phase"] == "over"
    return winner, folder, hand["handId"]


def seat_of(view: dict, who: dict) -> dict:
    return next(s for s in view["seats"] if s["participantId"] == who["participantId"])


async def refused(http, path: str, who: dict, status: int, code: str, reason: str | None = None, **kw) -> None:
    r = await http.post(path, headers=who["headers"], **kw)
    assert r.status_code == status and r.json()["code"] == code, r.text
    if reason:
        assert r.json()["details"]["reason"] == reason, r.text


# --- REST --------------------------------------------------------------------------------------


async def test_rest_sit_out_and_sit_in(stack, http, bus) -> None:
    table_id, a, b = await seated_pair(http, bus)
    stranger = await sign_up(http)
    for control in ("sit-out", "sit-in"):
        await refused(http, f"{base(table_id)}/{control}", stranger, 409, "not_seated")
    before = await table_view(http, table_id, a)
    assert seat_of(before, a)["sittingOut"] is False

    r = await http.post(f"{base(table_id)}/sit-out", headers=a["headers"])
    assert r.status_code == 200 and r.json()["status"] == "ok", r.text
    seen_by_b = seat_of(await table_view(http, table_id, b), a)
    assert seen_by_b["sittingOut"] is True and seen_by_b["status"] == "sitting_out"
    await refused(http, f"{base(table_id)}/start", a, 409, "conflict", "sitting_out")  # not dealt in while out
    await refused(http, f"{base(table_id)}/start", b, 409, "conflict", "not_enough_ready")
    assert (await table_view(http, table_id, b))["hand"] is None
    events = (await http.get(f"{base(table_id)}/events", params={"after": before["seq"]}, headers=b["headers"])).json()[
        "events"
    ]
    assert [(e["kind"], e["participantId"]) for e in events] == [
        ("sit_out", a["participantId"]),
        ("ready", b["participantId"]),
    ]

    r = await http.post(f"{base(table_id)}/sit-in", headers=a["headers"])
    assert r.status_code == 200, r.text
    assert seat_of(await table_view(http, table_id, b), a)["sittingOut"] is False
    hand = await start(http, table_id, a, b)
    assert {s["participantId"] for s in hand["seats"]} == {a["participantId"], b["participantId"]}

    r = await http.post(f"{base(table_id)}/sit-out", headers={**a["headers"], "Idempotency-Key": "out-1"})
    again = await http.post(f"{base(table_id)}/sit-out", headers={**a["headers"], "Idempotency-Key": "out-1"})
    assert (
        again.status_code == 200
        and again.headers.get("Idempotent-Replayed") == "true"
        and again.json()["seq"] == r.json()["seq"]
    )
    assert seat_of(await table_view(http, table_id, b), a)["sittingOut"] is True  # mid-hand: out from the next deal


async def test_rest_show_after_a_fold_win_reveals_the_cards_to_everyone(stack, http, bus) -> None:
    table_id, a, b = await seated_pair(http, bus)
    await refused(http, f"{base(table_id)}/show", a, 409, "illegal_action", "nothing_to_show")  # no hand yet
    hand = await start(http, table_id, a, b)
    await refused(http, f"{base(table_id)}/show", a, 409, "illegal_action", "hand_running")
    assert (await table_view(http, table_id, a))["canShow"] is False
    await http.post(
        f"{base(table_id)}/actions",
        json={"type": "fold"},
        headers=(a if (await table_view(http, table_id, a))["yourSeatId"] == hand["actorSeatId"] else b)["headers"],
    )
    view_a, view_b = await table_view(http, table_id, a), await table_view(http, table_id, b)
    winner, folder = (a, b) if seat_of(view_a, a)["stack"] > seat_of(view_a, b)["stack"] else (b, a)
    views = {a["participantId"]: view_a, b["participantId"]: view_b}
    win_view = views[winner["participantId"]]
    assert win_view["canShow"] is True and views[folder["participantId"]]["canShow"] is True
    win_seat = win_view["yourSeatId"]
    assert (
        next(s for s in views[folder["participantId"]]["hand"]["seats"] if s["seat"] == win_seat)["cards"] is None
    )  # a fold-win shows nothing
    stranger = await sign_up(http)
    await refused(http, f"{base(table_id)}/show", stranger, 409, "not_seated")
    await refused(http, f"{base(table_id)}/show", winner, 409, "hand_closed", json={"handId": "not-this-hand"})
    await refused(
        http, f"{base(table_id)}/show", winner, 422, "validation", json={"handId": hand["handId"], "extra": 1}
    )
    assert (await table_view(http, table_id, folder))["seq"] == views[folder["participantId"]][
        "seq"
    ]  # refusals changed nothing

    key = {**winner["headers"], "Idempotency-Key": "show-1"}
    r = await http.post(f"{base(table_id)}/show", json={"handId": hand["handId"]}, headers=key)
    assert r.status_code == 200, r.text
    again = await http.post(f"{base(table_id)}/show", json={"handId": hand["handId"]}, headers=key)
    assert again.status_code == 200 and again.json()["replayed"] is True
    cards = win_view["hand"]["holeCards"]
    for viewer in (folder, stranger):  # the other player and someone only watching
        seen = await table_view(http, table_id, viewer)
        shown = next(s for s in seen["hand"]["seats"] if s["seat"] == win_seat)
        assert shown["cards"] == cards and shown["shown"] is True
    events = (
        await http.get(f"{base(table_id)}/events", params={"after": win_view["seq"]}, headers=stranger["headers"])
    ).json()["events"]
    assert [(e["kind"], e["seat"], e["cards"]) for e in events] == [("show", win_seat, cards)]
    assert (await table_view(http, table_id, winner))["canShow"] is False
    await refused(http, f"{base(table_id)}/show", winner, 409, "illegal_action", "nothing_to_show")  # shown already
    r = await http.post(f"{base(table_id)}/show", headers=folder["headers"])  # no body: the last hand
    assert r.status_code == 200, r.text


async def test_rest_auto_rebuy_on_and_off_where_the_table_allows_it(stack, http, bus) -> None:
    table_id, a, _ = await seated_pair(
        http,
        bus,
        rules_version="draw5-1",
        small_blind=0,
        big_blind=0,
        ante=4,
        min_buy_in=40,
        max_buy_in=200,
        auto_rebuy=True,
    )
    view = await table_view(http, table_id, a)
    assert view["autoRebuy"] is False and view["config"]["autoRebuy"] is True
    r = await http.post(f"{base(table_id)}/auto-rebuy", json={"enabled": True}, headers=a["headers"])
    assert r.status_code == 200, r.text
    assert (await table_view(http, table_id, a))["autoRebuy"] is True
    assert (
        await http.post(f"{base(table_id)}/auto-rebuy", json={"enabled": False}, headers=a["headers"])
    ).status_code == 200
    assert (await table_view(http, table_id, a))["autoRebuy"] is False
    await refused(http, f"{base(table_id)}/auto-rebuy", a, 422, "validation", json={"enabled": "yes"})
    await refused(http, f"{base(table_id)}/auto-rebuy", a, 422, "validation", json={})
    await refused(http, f"{base(table_id)}/auto-rebuy", await sign_up(http), 409, "not_seated", json={"enabled": True})

    plain, c, _ = await seated_pair(http, bus)
    before = await table_view(http, plain, c)
    assert before["autoRebuy"] is False and before["config"]["autoRebuy"] is False
    await refused(
        http, f"{base(plain)}/auto-rebuy", c, 403, "forbidden", "auto_rebuy_not_allowed", json={"enabled": True}
    )
    after = await table_view(http, plain, c)
    assert after["autoRebuy"] is False and after["seq"] == before["seq"]
    assert (
        await http.post(f"{base(plain)}/auto-rebuy", json={"enabled": False}, headers=c["headers"])
    ).status_code == 200
    assert (await table_view(http, table_id, await sign_up(http)))["autoRebuy"] is None  # not seated: no setting


# --- WebSocket ---------------------------------------------------------------------------------


class Socket:
    """One person's socket: answers (`result`/`error`) in one queue, table events in another."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.answers: asyncio.Queue[dict] = asyncio.Queue()
        self.events: asyncio.Queue[dict] = asyncio.Queue()
        self.snapshots: asyncio.Queue[dict] = asyncio.Queue()
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                queue = {"event": self.events, "snapshot": self.snapshots, "hello": None}.get(
                    frame["type"], self.answers
                )
                if queue is not None:
                    await queue.put(frame)
        except websockets.ConnectionClosed:
            pass

    async def send(self, frame: dict) -> dict:
        await self.ws.send(json.dumps(frame))
        return await asyncio.wait_for(self.answers.get(), 10)

    async def event(self, kind: str) -> dict:
        while True:
            frame = await asyncio.wait_for(self.events.get(), 10)
            if frame["event"]["kind"] == kind:
                return frame["event"]

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def socket(stack, who: dict, table_id: str) -> Socket:
    s = Socket(await websockets.connect(stack.ws_url + "?token=" + who["token"]))
    assert (await s.send({"type": "subscribe", "tableId": table_id}))["type"] == "subscribed"
    await asyncio.wait_for(s.snapshots.get(), 10)
    return s


async def test_ws_controls_answer_results_and_errors_and_their_events_reach_everyone(stack, http, bus) -> None:
    table_id, a, b = await seated_pair(http, bus)
    sa, sb = await socket(stack, a, table_id), await socket(stack, b, table_id)
    stranger = await sign_up(http)
    sx = await socket(stack, stranger, table_id)  # only watching
    try:
        for frame in ({"type": "sitOut"}, {"type": "sitIn"}, {"type": "show"}, {"type": "autoRebuy", "enabled": True}):
            err = await sx.send(frame | {"tableId": table_id, "requestId": "x"})
            assert err["type"] == "error" and err["code"] == "not_seated" and err["requestId"] == "x", err

        res = await sa.send({"type": "sitOut", "tableId": table_id, "requestId": "o1"})
        assert (
            res["type"] == "result"
            and res["command"] == "sitOut"
            and res["status"] == "ok"
            and res["requestId"] == "o1"
        ), res
        assert (await sx.event("sit_out"))["participantId"] == a["participantId"]
        assert seat_of(await table_view(http, table_id, b), a)["sittingOut"] is True
        res = await sa.send({"type": "sitIn", "tableId": table_id})
        assert res["type"] == "result" and res["command"] == "sitIn", res
        assert (await sx.event("sit_in"))["participantId"] == a["participantId"]

        err = await sa.send({"type": "autoRebuy", "tableId": table_id, "enabled": True})
        assert (
            err["type"] == "error"
            and err["code"] == "forbidden"
            and err["details"]["reason"] == "auto_rebuy_not_allowed"
        ), err
        assert (await table_view(http, table_id, a))["autoRebuy"] is False
        err = await sa.send({"type": "autoRebuy", "tableId": table_id, "enabled": "on"})
        assert err["type"] == "error" and err["code"] == "validation", err
        res = await sa.send({"type": "autoRebuy", "tableId": table_id, "enabled": False})
        assert res["type"] == "result" and res["command"] == "autoRebuy", res

        err = await sa.send({"type": "show", "tableId": table_id})
        assert (
            err["type"] == "error" and err["code"] == "illegal_action" and err["details"]["reason"] == "nothing_to_show"
        ), err
        winner, _, hand_id = await fold_win(http, table_id, a, b)
        ws_winner = sa if winner is a else sb
        err = await ws_winner.send({"type": "show", "tableId": table_id, "handId": "another-hand"})
        assert err["type"] == "error" and err["code"] == "hand_closed", err
        cards = (await table_view(http, table_id, winner))["hand"]["holeCards"]
        res = await ws_winner.send({"type": "show", "tableId": table_id, "handId": hand_id, "requestId": "s1"})
        assert res["type"] == "result" and res["command"] == "show" and res["status"] == "ok", res
        shown = await sx.event("show")  # the spectator sees the revealed cards
        assert shown["cards"] == cards and shown["participantId"] == winner["participantId"]
        resent = await ws_winner.send({"type": "show", "tableId": table_id, "handId": hand_id, "requestId": "s1"})
        assert resent == res  # the same requestId: applied once, the first result again
        again = await ws_winner.send({"type": "show", "tableId": table_id, "handId": hand_id, "requestId": "s2"})
        assert again["type"] == "error" and again["details"]["reason"] == "nothing_to_show", again  # shown once

        resub = await sx.send({"type": "subscribe", "tableId": table_id})  # a fresh snapshot carries it too
        assert resub["type"] == "subscribed"
        snap = (await asyncio.wait_for(sx.snapshots.get(), 10))["table"]
        assert next(s for s in snap["hand"]["seats"] if s["participantId"] == winner["participantId"])["cards"] == cards
        assert (
            snap["canShow"] is False
            and snap["autoRebuy"] is None
            and all(s["sittingOut"] is False for s in snap["seats"])
        )
    finally:
        for s in (sa, sb, sx):
            await s.close()


async def test_rest_join_and_leave_retried_with_one_idempotency_key_apply_once(stack, http, bus) -> None:
    table_id = await create_table(bus)
    a = await sign_up(http)
    key = {**a["headers"], "Idempotency-Key": "seat-me-1"}
    first = await http.post(f"{base(table_id)}/join", json={"buyIn": 60}, headers=key)
    again = await http.post(f"{base(table_id)}/join", json={"buyIn": 60}, headers=key)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert again.json() == first.json()  # the first result: one seat, one buy-in
    r = await http.post(f"{base(table_id)}/join", json={"buyIn": 60}, headers=a["headers"])
    assert r.status_code == 409 and r.json()["code"] == "already_seated"  # a new join is a new command
    view = await table_view(http, table_id, a)
    assert [s["stack"] for s in view["seats"]] == [60]
    bye = {**a["headers"], "Idempotency-Key": "bye-1"}
    left = await http.post(f"{base(table_id)}/leave", headers=bye)
    assert left.status_code == 200 and left.json()["status"] == "left", left.text
    assert (await http.post(f"{base(table_id)}/leave", headers=bye)).json() == left.json()
