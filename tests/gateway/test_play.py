"""Play through the gateway against the real table: end to end (two agents over REST, one
person over the WebSocket, 20 hands), privacy, admission, one participant per owner,
idempotent retry, stale turns and chat limits."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from felt_contracts import subjects
from felt_engine.replay import replay_text
from felt_runtime.bus import call
from tests.support.gateway import choose, create_table, new_agent, sign_up
from tests.support.servers import connected

HANDS = 20


@pytest.fixture
async def bus(stack, nats_url: str):
    if not stack.has("table"):
        pytest.skip("the table service is not running")
    async with connected(nats_url) as broker:
        yield broker


class Recorder:
    """Everything one client received (REST bodies, WebSocket frames), as raw text."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, text: str) -> None:
        self.texts.append(text)


async def rest_view(http, table_id: str, headers: dict, rec: Recorder) -> dict:
    r = await http.get(f"/api/v2/poker/tables/{table_id}", headers=headers)
    rec.add(r.text)
    assert r.status_code == 200, r.text
    return r.json()["table"]


class Person:
    """A person on the WebSocket: keeps the latest snapshot-ish state from events."""

    def __init__(self, ws, rec: Recorder) -> None:
        self.ws = ws
        self.rec = rec
        self.frames: list[dict] = []
        self.turn: dict | None = None
        self.last_seq = 0
        self.task = asyncio.create_task(self.read())
        self.results: asyncio.Queue[dict] = asyncio.Queue()

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                self.rec.add(raw)
                frame = json.loads(raw)
                self.frames.append(frame)
                if frame["type"] == "event":
                    assert frame["seq"] > self.last_seq, "events in order without repeats"
                    self.last_seq = frame["seq"]
                    ev = frame["event"]
                    if ev["kind"] == "turn":
                        self.turn = ev["turn"]
                elif frame["type"] in ("result", "error", "subscribed"):
                    await self.results.put(frame)
        except websockets.ConnectionClosed:
            pass

    async def send(self, frame: dict) -> dict:
        """Send a frame and return its reply. This person plays faster than the socket's rate
        budget, so a `throttled` answer is waited out and the frame sent again, as a client
        does; a reader that failed (an event out of order) fails the test with its own error."""
        while True:
            await self.ws.send(json.dumps(frame))
            reply = asyncio.ensure_future(self.results.get())
            done, _ = await asyncio.wait({reply, self.task}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
            if reply not in done:
                reply.cancel()
                if self.task.done():
                    self.task.result()
                raise TimeoutError(f"no reply to {frame} within 10 s; last frames: {self.frames[-6:]}")
            got = reply.result()
            if got["type"] != "error" or got["code"] != "throttled":
                return got
            await asyncio.sleep(got["details"]["retry_after"])


async def test_end_to_end_two_agents_and_a_person_play_20_hands_with_privacy(stack, http, bus) -> None:
    table_id = await create_table(bus, admission="MIXED")
    owners = [await sign_up(http) for _ in range(3)]
    agents = [await new_agent(http, owners[0], "alpha"), await new_agent(http, owners[1], "beta")]
    person_owner = owners[2]
    recs = {a["participantId"]: Recorder() for a in agents} | {person_owner["participantId"]: Recorder()}
    before = {}
    for who in agents + [person_owner]:
        b = (await http.get("/api/v2/poker/balance", headers=who["headers"])).json()
        before[b["accountId"]] = b["available"]

    # the person connects, watches, joins over the socket
    ws = await websockets.connect(stack.ws_url + "?token=" + person_owner["token"])
    person = Person(ws, recs[person_owner["participantId"]])
    sub = await person.send({"type": "subscribe", "tableId": table_id, "requestId": "s1"})
    assert sub["type"] == "subscribed"
    joined = await person.send({"type": "join", "tableId": table_id, "buyIn": 100, "requestId": "j1"})
    assert joined["type"] == "result", joined
    for a in agents:
        r = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=a["headers"])
        recs[a["participantId"]].add(r.text)
        assert r.status_code == 200, r.text

    by_pid = {a["participantId"]: a for a in agents}
    hand_ids: list[str] = []
    for n in range(HANDS):
        # everyone still seated marks ready; one agent starts
        for a in agents:
            await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=a["headers"])
        await person.send({"type": "start", "tableId": table_id})
        view = await rest_view(http, table_id, agents[0]["headers"], recs[agents[0]["participantId"]])
        if view.get("hand") is None or view["hand"]["phase"] == "over":
            break  # not enough players with chips left
        hand_id = view["hand"]["handId"]
        hand_ids.append(hand_id)
        for _ in range(200):
            view = await rest_view(http, table_id, agents[0]["headers"], recs[agents[0]["participantId"]])
            hand = view["hand"]
            if hand["handId"] != hand_id or hand["phase"] == "over":
                break
            actor_seat = hand["actorSeatId"]
            seat_pid = {s["seat"]: s["participantId"] for s in view["seats"]}
            pid = seat_pid.get(actor_seat)
            if pid in by_pid:
                a = by_pid[pid]
                mine = await rest_view(http, table_id, a["headers"], recs[pid])
                assert mine["yourSeatId"] == actor_seat and mine["hand"]["legalActions"] is not None
                action = choose(mine["hand"]["legalActions"]) | {"handId": hand_id, "turnId": mine["hand"]["turnId"]}
                r = await http.post(
                    f"/api/v2/poker/tables/{table_id}/actions",
                    json=action,
                    headers={**a["headers"], "Idempotency-Key": f"{hand_id}:{mine['hand']['turnId']}"},
                )
                recs[pid].add(r.text)
                assert r.status_code in (200, 409), r.text
            elif pid == person_owner["participantId"]:
                for _ in range(100):
                    if person.turn and person.turn["handId"] == hand_id and person.turn["turnId"] == hand["turnId"]:
                        break
                    await asyncio.sleep(0.02)
                turn = person.turn
                assert turn is not None and turn["turnId"] == hand["turnId"]
                res = await person.send(
                    {
                        "type": "act",
                        "tableId": table_id,
                        "action": choose(turn["legalActions"]),
                        "handId": hand_id,
                        "turnId": turn["turnId"],
                    }
                )
                assert res["type"] in ("result", "error"), res
            else:
                await asyncio.sleep(0.05)
        # long-poll and chat along the way
        if n == 0:
            ev = await http.get(
                f"/api/v2/poker/tables/{table_id}/events", params={"after": 0, "wait": 1}, headers=agents[1]["headers"]
            )
            recs[agents[1]["participantId"]].add(ev.text)
            assert ev.status_code == 200 and ev.json()["events"] and ev.json()["events"][0]["seq"] == 1
            said = await http.post(
                f"/api/v2/poker/tables/{table_id}/chat", json={"text": "gl <b>hf</b>"}, headers=agents[0]["headers"]
            )
            assert said.status_code == 200, said.text
            said2 = await person.send({"type": "chat", "tableId": table_id, "text": "thanks!"})
            assert said2["type"] == "result", said2
    assert len(hand_ids) == HANDS, f"only {len(hand_ids)} hands were dealt"
    chat = (await http.get(f"/api/v2/poker/tables/{table_id}/chat", headers=agents[1]["headers"])).json()
    assert [m["text"] for m in chat["messages"]][-2:] == ["gl <b>hf</b>", "thanks!"]  # plain text, stored as sent

    # histories: JSON and PHH for each participant; the full truth for the privacy check
    for h in hand_ids:
        for a in agents:
            r = await http.get(f"/api/v2/poker/hands/{h}", headers=a["headers"])
            recs[a["participantId"]].add(r.text)
            assert r.status_code == 200, r.text
        phh = await http.get(f"/api/v2/poker/hands/{h}.phh", headers=agents[0]["headers"])
        recs[agents[0]["participantId"]].add(phh.text)
        assert phh.status_code == 200
        replayed = next(replay_text(phh.text))  # the history loads back (felt_engine replay)
        assert replayed.file_agrees is True and replayed.name == h
    listed = await http.get(
        f"/api/v2/poker/tables/{table_id}/hands", params={"mine": "true"}, headers=agents[0]["headers"]
    )
    assert listed.status_code == 200

    # leave, then balances and sessions match
    for a in agents:
        r = await http.post(f"/api/v2/poker/tables/{table_id}/leave", headers=a["headers"])
        assert r.status_code in (200, 409), r.text
    await person.send({"type": "leave", "tableId": table_id})
    await asyncio.sleep(0.5)
    total_after = 0
    for who in agents + [person_owner]:
        b = (await http.get("/api/v2/poker/balance", headers=who["headers"])).json()
        s = (await http.get("/api/v2/poker/sessions", headers=who["headers"])).json()["sessions"]
        assert b["reserved"] == 0 and b["inPlay"] == 0
        mine = [x for x in s if x["tableId"] == table_id]
        assert len(mine) == 1 and mine[0]["status"] == "closed" and mine[0]["buyIn"] == 100
        assert b["available"] == before[b["accountId"]] + mine[0]["net"]
        total_after += b["available"]
    assert total_after == sum(before.values())  # chips only moved between the three
    await ws.close()
    person.task.cancel()

    # every door (view, events, histories JSON and PHH, lobby, leaderboard) shows screen names,
    # never an email or part of one (docs/gateway.md "Screen names")
    for who in agents + [person_owner]:
        rec = recs[who["participantId"]]
        for path in ("/api/v2/poker/tables", "/api/v2/poker/leaderboard?limit=100"):
            r = await http.get(path, headers=who["headers"])
            assert r.status_code == 200
            rec.add(r.text)
    person_name = (await http.get("/api/v2/accounts/me", headers=person_owner["headers"])).json()["name"]
    assert any(person_name in text for text in recs[person_owner["participantId"]].texts)
    for pid, rec in recs.items():
        blob = "\n".join(rec.texts).casefold()
        for owner in owners:
            local = owner["email"].split("@")[0].casefold()
            assert owner["email"].casefold() not in blob and local not in blob, (pid, local)

    # privacy: nothing a participant received contains a card it may not see
    truth = await full_histories(bus, table_id, hand_ids)
    for pid, rec in recs.items():
        blob = "\n".join(rec.texts)
        for hand in truth:
            forbidden = secret_cards(hand, pid)
            leaked = [c for c in forbidden if f'"{c}"' in blob or f"'{c}'" in blob]
            assert leaked == [], (pid, hand.summary.hand_id, leaked)


async def full_histories(bus, table_id: str, hand_ids: list[str]) -> list:
    """The full truth of each hand: the table redacts every history for its viewer (with no
    viewer, nobody's hole cards are in it), so each seat's private operations are taken from
    the history that seat's own participant gets, over the bus."""
    from felt_contracts.table import GetHand, TableRequest, TableResult

    async def seen_by(h: str, viewer: str | None):
        command = GetHand(hand_id=h, viewer=viewer)
        return (
            await call(
                bus, subjects.table_command(table_id), TableRequest(table_id=table_id, command=command), TableResult
            )
        ).hand

    out = []
    for h in hand_ids:
        public = await seen_by(h, None)
        own = {int(seat): await seen_by(h, pid) for seat, pid in public.summary.seats.items()}
        ops = [
            own[op.seat].operations[i] if op.kind in ("deal_hole", "draw") and op.seat in own else op
            for i, op in enumerate(public.operations)
        ]
        assert any(op.cards for op in ops if op.kind == "deal_hole"), "the truth must hold the hole cards"
        out.append(public.model_copy(update={"operations": tuple(ops)}))
    return out


def secret_cards(hand, pid: str) -> set[str]:
    """Cards `pid` must never see in this hand: others' hole cards not shown at showdown.
    (Burn and undealt cards never appear in any history, so they cannot be listed here; the
    spectator history below already omits them, and no client text may contain any card that
    is not on the board, not its own, and not shown.)"""
    seat_of = {p: int(s) for s, p in hand.summary.seats.items()}
    mine = seat_of.get(pid)
    shown: set[str] = set()
    dealt: dict[int, set[str]] = {}
    for op in hand.operations:
        if op.kind == "show":
            shown.update(op.cards)
        if op.kind in ("deal_hole", "draw") and op.seat is not None:
            dealt.setdefault(op.seat, set()).update(op.cards)
    secret = set()
    for seat, cards in dealt.items():
        if seat != mine:
            secret |= cards - shown
    return secret


async def test_admission_agents_only_refuses_a_human_humans_only_refuses_an_agent(stack, http, bus) -> None:
    agents_only = await create_table(bus, admission="AGENTS_ONLY")
    humans_only = await create_table(bus, admission="HUMANS_ONLY")
    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    r = await http.post(f"/api/v2/poker/tables/{agents_only}/join", json={"buyIn": 50}, headers=owner["headers"])
    assert r.status_code == 403 and r.json()["code"] == "admission"
    r = await http.post(f"/api/v2/poker/tables/{humans_only}/join", json={"buyIn": 50}, headers=agent["headers"])
    assert r.status_code == 403 and r.json()["code"] == "admission"
    assert (
        await http.post(f"/api/v2/poker/tables/{agents_only}/join", json={"buyIn": 50}, headers=agent["headers"])
    ).status_code == 200
    listed = (await http.get("/api/v2/poker/tables", params={"kind": "human"})).json()["tables"]
    assert humans_only in {t["tableId"] for t in listed} and agents_only not in {t["tableId"] for t in listed}


async def test_one_participant_per_owner_per_table(stack, http, bus) -> None:
    table_id = await create_table(bus)
    owner = await sign_up(http)
    a1, a2 = await new_agent(http, owner, "one"), await new_agent(http, owner, "two")
    assert (
        await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=a1["headers"])
    ).status_code == 200
    r = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=a2["headers"])
    assert 400 <= r.status_code < 500 and r.json()["code"] in ("admission", "already_seated", "conflict", "forbidden")
    r = await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=owner["headers"])
    assert 400 <= r.status_code < 500


async def heads_up(http, bus) -> tuple[str, list[dict], dict]:
    table_id = await create_table(bus)
    players = []
    for _ in range(2):
        o = await sign_up(http)
        players.append(await new_agent(http, o))
    for p in players:
        assert (
            await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 100}, headers=p["headers"])
        ).status_code == 200
    await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=players[1]["headers"])
    r = await http.post(f"/api/v2/poker/tables/{table_id}/start", headers=players[0]["headers"])
    assert r.status_code == 200, r.text
    view = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=players[0]["headers"])).json()["table"]
    return table_id, players, view


async def test_idempotent_retry_returns_the_first_outcome(stack, http, bus) -> None:
    table_id, players, view = await heads_up(http, bus)
    hand = view["hand"]
    seat_pid = {s["seat"]: s["participantId"] for s in view["seats"]}
    actor = next(p for p in players if p["participantId"] == seat_pid[hand["actorSeatId"]])
    body = {"type": "call", "handId": hand["handId"], "turnId": hand["turnId"]}
    headers = {**actor["headers"], "Idempotency-Key": "retry-1"}
    first = await http.post(f"/api/v2/poker/tables/{table_id}/actions", json=body, headers=headers)
    assert first.status_code == 200, first.text
    again = await http.post(f"/api/v2/poker/tables/{table_id}/actions", json=body, headers=headers)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["seq"] == first.json()["seq"]
    # the table keeps the outcome, not the table view: a replay shows the table now
    assert first.json()["table"]["seq"] == first.json()["seq"] and again.json()["table"]["seq"] >= first.json()["seq"]
    assert again.json()["replayed"] is True and first.json()["replayed"] is False
    other = await http.post(f"/api/v2/poker/tables/{table_id}/actions", json={"type": "fold"}, headers=headers)
    assert other.status_code == 409 and other.json()["details"]["reason"] == "idempotency_key_reused"
    balance = (await http.get("/api/v2/poker/balance", headers=actor["headers"])).json()
    assert balance["inPlay"] >= 0


async def test_stale_turn_is_refused_and_never_applied_to_a_later_turn(stack, http, bus) -> None:
    table_id, players, view = await heads_up(http, bus)
    hand = view["hand"]
    seat_pid = {s["seat"]: s["participantId"] for s in view["seats"]}
    actor = next(p for p in players if p["participantId"] == seat_pid[hand["actorSeatId"]])
    ok = await http.post(
        f"/api/v2/poker/tables/{table_id}/actions",
        json={"type": "call", "handId": hand["handId"], "turnId": hand["turnId"]},
        headers=actor["headers"],
    )
    assert ok.status_code == 200, ok.text
    now = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=actor["headers"])).json()["table"]["hand"]
    other = next(p for p in players if p is not actor)
    stale = await http.post(
        f"/api/v2/poker/tables/{table_id}/actions",
        json={"type": "fold", "handId": hand["handId"], "turnId": hand["turnId"]},
        headers=other["headers"],
    )
    assert stale.status_code == 409 and stale.json()["code"] == "stale_turn", stale.text
    after = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=actor["headers"])).json()["table"]["hand"]
    assert after["turnId"] == now["turnId"] and after["phase"] == now["phase"]  # nothing changed


async def test_chat_limits_length_throttle_and_membership(stack, http, bus) -> None:
    table_id = await create_table(bus)
    owner = await sign_up(http)
    agent = await new_agent(http, owner)
    outsider = await sign_up(http)
    assert (
        await http.post(f"/api/v2/poker/tables/{table_id}/join", json={"buyIn": 50}, headers=agent["headers"])
    ).status_code == 200
    too_long = await http.post(
        f"/api/v2/poker/tables/{table_id}/chat", json={"text": "x" * 501}, headers=agent["headers"]
    )
    assert too_long.status_code == 422 and too_long.json()["code"] == "invalid_message"
    assert (
        await http.post(f"/api/v2/poker/tables/{table_id}/chat", json={"text": "y" * 500}, headers=agent["headers"])
    ).status_code == 200
    nope = await http.post(f"/api/v2/poker/tables/{table_id}/chat", json={"text": "hi"}, headers=outsider["headers"])
    assert nope.status_code == 403
    statuses = []
    for i in range(30):
        r = await http.post(
            f"/api/v2/poker/tables/{table_id}/chat", json={"text": f"spam {i}"}, headers=agent["headers"]
        )
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert r.json()["code"] == "throttled" and int(r.headers["Retry-After"]) >= 1
            break
    assert 429 in statuses


async def test_another_participants_key_never_shows_your_cards(stack, http, bus) -> None:
    table_id, players, view = await heads_up(http, bus)
    mine = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=players[0]["headers"])).json()["table"]
    theirs = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=players[1]["headers"])).json()["table"]
    my_cards = mine["hand"]["holeCards"]
    assert my_cards and len(my_cards) == 2
    text = json.dumps(theirs)
    assert not any(f'"{c}"' in text for c in my_cards)
    ev = (
        await http.get(f"/api/v2/poker/tables/{table_id}/events", params={"after": 0}, headers=players[1]["headers"])
    ).text
    assert not any(f'"{c}"' in ev for c in my_cards)


async def test_a_rest_watcher_may_chat(stack, http, bus) -> None:
    """The Clawbet rules: whoever watches a table may post; over REST, watching is reading its view or events."""
    table_id = await create_table(bus)
    viewer, poller = await sign_up(http), await new_agent(http, await sign_up(http))
    chat = f"/api/v2/poker/tables/{table_id}/chat"
    assert (await http.post(chat, json={"text": "hi"}, headers=viewer["headers"])).status_code == 403
    assert (await http.post(chat, json={"text": "hi"}, headers=poller["headers"])).status_code == 403
    assert (await http.get(f"/api/v2/poker/tables/{table_id}", headers=viewer["headers"])).status_code == 200
    assert (
        await http.get(f"/api/v2/poker/tables/{table_id}/events", params={"after": 0}, headers=poller["headers"])
    ).status_code == 200
    said = await http.post(chat, json={"text": "watching"}, headers=viewer["headers"])
    assert said.status_code == 200, said.text
    said = await http.post(chat, json={"text": "me too"}, headers=poller["headers"])
    assert said.status_code == 200, said.text
    texts = [m["text"] for m in (await http.get(chat, headers=viewer["headers"])).json()["messages"]]
    assert texts == ["watching", "me too"]


async def test_a_failed_chat_post_never_undoes_or_delays_an_action(stack, http, bus) -> None:
    table_id, players, view = await heads_up(http, bus)
    hand = view["hand"]
    seat_pid = {s["seat"]: s["participantId"] for s in view["seats"]}
    actor = next(p for p in players if p["participantId"] == seat_pid[hand["actorSeatId"]])
    chat = f"/api/v2/poker/tables/{table_id}/chat"
    for i in range(30):  # throttle the actor's chat
        if (await http.post(chat, json={"text": f"spam {i}"}, headers=actor["headers"])).status_code == 429:
            break
    action = {"type": "call", "handId": hand["handId"], "turnId": hand["turnId"]}
    refused, too_long, acted = await asyncio.gather(
        http.post(chat, json={"text": "again"}, headers=actor["headers"]),
        http.post(chat, json={"text": "x" * 501}, headers=actor["headers"]),
        http.post(f"/api/v2/poker/tables/{table_id}/actions", json=action, headers=actor["headers"]),
    )
    assert refused.status_code == 429 and too_long.status_code in (422, 429)
    assert acted.status_code == 200, acted.text
    after = (await http.get(f"/api/v2/poker/tables/{table_id}", headers=actor["headers"])).json()["table"]["hand"]
    assert after["turnId"] > hand["turnId"] and after["actorSeatId"] != hand["actorSeatId"]  # the call stands
