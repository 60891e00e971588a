"""Every error code the OpenAPI lists for a route is reached, table-driven: a case per
(operationId, code) makes the request that gets that code, and the route must answer it at the
status the document lists. The cases are checked against the served document both ways: a
listed code no case reaches fails, and so does a case for a code the route does not list.
The codes a route's signature implies (no credentials, an agent's key on an owner's route, a
body that is not JSON, a parameter that breaks its rule) are reached from the document itself;
`unavailable` on a room whose services are away. schemathesis checks the other side:
no route answers a status or code it does not list (test_zz_openapi.py)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from felt_contracts import subjects
from felt_contracts.table import Admission, CloseTable, StartMode, TableSummary
from felt_contracts.tournament import CancelTournament, CreateTournament, TournamentView
from felt_contracts.wallet import Commit, CommitResult
from felt_gateway.app import make
from felt_gateway.errors import status_for
from felt_gateway.openapi import implied
from felt_runtime.bus import call
from felt_runtime.settings import Settings
from fastapi import routing
from fastapi.routing import APIRoute
from tests.gateway.test_play import bus  # noqa: F401 - the fixture
from tests.support.gateway import create_table, new_agent, sign_up, unique_email
from tests.support.servers import nats_server, redis_server
from tests.support.services import ServiceRunner
from tests.support.waiting import eventually
from tests.tournament.conftest import definition

POKER, ACCOUNTS = "/api/v2/poker", "/api/v2/accounts"
#: owners signed up at once before the cases: the cases' tables seat one participant per owner
STRANGERS = 24
Response = httpx.Response


def document() -> dict[str, Any]:
    return make(Settings())[0].openapi()


def listed(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """operationId -> {method, path, op, codes}."""
    found = {}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            codes = {
                code
                for status, answer in op["responses"].items()
                if not status.startswith("2")
                for code in answer["content"]["application/json"]["schema"]["properties"]["code"]["enum"]
            }
            found[op["operationId"]] = {"method": method.upper(), "path": path, "op": op, "codes": codes}
    return found


def implied_codes() -> dict[str, set[str]]:
    """operationId -> the codes its signature implies (felt_gateway/openapi.py)."""
    app = make(Settings())[0]
    spec = app.openapi()
    ids = {(p, m.upper()): op["operationId"] for p, ops in spec["paths"].items() for m, op in ops.items()}
    return {
        ids[(route.path_format, method)]: {str(c) for c in implied(route)}
        for route in routing.iter_route_contexts(app.routes)
        if isinstance(route.original_route, APIRoute) and route.include_in_schema
        for method in route.methods or ()
    }


@dataclass
class Room:
    """The people and tables the cases share (each case that changes something makes its own)."""

    http: httpx.AsyncClient
    bus: Any
    owner: dict
    agent: dict
    other: dict  # another owner's agent
    idle: str  # a table nobody sits at
    seated: str  # a table `agent` sits at, no hand dealt
    playing: tuple[str, list[dict], dict] = ("", [], {})  # heads-up, a hand running
    extra: dict[str, Any] = field(default_factory=dict)

    async def post(self, path: str, who: dict, **kw: Any) -> Response:
        return await self.http.post(path, headers={**who["headers"], **kw.pop("headers", {})}, **kw)

    async def get(self, path: str, who: dict, **kw: Any) -> Response:
        return await self.http.get(path, headers=who["headers"], **kw)

    async def fresh(self) -> dict:
        """A new agent of `owner` (cheap: no sign-up)."""
        return await new_agent(self.http, self.owner)

    async def stranger(self) -> dict:
        """An agent of an owner of its own (one participant per owner sits at a table)."""
        pool = self.extra["strangers"]
        return pool.pop() if pool else await new_agent(self.http, await sign_up(self.http))

    async def heads_up(self) -> tuple[str, list[dict], dict]:
        """Two strangers at a table of their own, the first hand dealt."""
        table_id, players = await self.table(), [await self.stranger(), await self.stranger()]
        for p in players:
            await self.post(t(table_id, "/join"), p, json={"buyIn": 100})
        for p in reversed(players):
            await self.post(t(table_id, "/start"), p)
        return table_id, players, (await self.get(t(table_id), players[0])).json()["table"]

    async def table(self, **cfg: Any) -> str:
        return await create_table(self.bus, **cfg)

    async def running(self) -> str:
        """A heads-up table whose hand waits on the turn `playing` names (dealt again when that
        turn is over: its clock may have run out while other cases ran)."""
        if self.playing[0]:
            view = (await self.get(t(self.playing[0]), self.playing[1][0])).json()["table"]
            if view.get("hand") and view["hand"]["turnId"] == self.playing[2]["hand"]["turnId"]:
                if view["hand"]["phase"] != "over":
                    return self.playing[0]
        self.playing = await self.heads_up()
        return self.playing[0]

    def mover(self, actor: bool) -> dict:
        """A player of the running hand: the one to act, or the other."""
        table_id, players, view = self.playing
        seat = {s["participantId"]: s["seat"] for s in view["seats"]}
        return next(p for p in players if (seat[p["participantId"]] == view["hand"]["actorSeatId"]) == actor)


Case = Callable[[Room], Awaitable[Response]]
CASES: dict[tuple[str, str], Case] = {}


def case(operation: str, *codes: str) -> Callable[[Case], Case]:
    def register(run: Case) -> Case:
        for code in codes:
            CASES[(operation, code)] = run
        return run

    return register


def t(table_id: str, tail: str = "") -> str:
    return f"{POKER}/tables/{table_id}{tail}"


# --- not_found: a table id that names no table, unknown ids ---------------------------------

for _op, _method, _tail in [
    ("join", "post", "/join"),
    ("start", "post", "/start"),
    ("leave", "post", "/leave"),
    ("preaction", "post", "/preaction"),
    ("sitOut", "post", "/sit-out"),
    ("sitIn", "post", "/sit-in"),
    ("show", "post", "/show"),
    ("autoRebuy", "post", "/auto-rebuy"),
    ("act", "post", "/actions"),
    ("view", "get", ""),
    ("events", "get", "/events"),
    ("hands", "get", "/hands"),
    ("chatHistory", "get", "/chat"),
    ("chatPost", "post", "/chat"),
]:

    def _unknown_table(room: Room, method: str = _method, tail: str = _tail, op: str = _op) -> Awaitable[Response]:
        bodies = {"preaction": {"preaction": None}, "autoRebuy": {"enabled": False}, "act": {"type": "fold"}}
        bodies["chatPost"] = {"text": "hi"}
        kw = {"json": bodies.get(op, {})} if method == "post" else {}
        return room.http.request(method.upper(), t("not-a-table!", tail), headers=room.agent["headers"], **kw)

    case(_op, "not_found")(_unknown_table)


@case("getRules", "not_found")
async def _(room: Room) -> Response:
    return await room.http.get(f"{POKER}/rules", params={"rulesVersion": "no-such-rules"})


@case("handJson", "not_found")
async def _(room: Room) -> Response:
    return await room.get(f"{POKER}/hands/no-such-hand", room.agent, params={"tableId": room.idle})


@case("handPhh", "not_found")
async def _(room: Room) -> Response:
    return await room.get(f"{POKER}/hands/no-such-hand.phh", room.agent, params={"tableId": room.idle})


@case("refillState", "not_found")
async def _(room: Room) -> Response:
    return await room.get(f"{POKER}/refill", room.owner, params={"participantId": room.other["participantId"]})


@case("refill", "not_found")
async def _(room: Room) -> Response:
    body = {"refillId": "r1", "participantId": room.other["participantId"]}
    return await room.post(f"{POKER}/refill", room.owner, json=body)


@case("rotateKey", "not_found")
async def _(room: Room) -> Response:
    return await room.post(f"{ACCOUNTS}/agents/{room.other['participantId']}/key", room.owner)


@case("revokeKey", "not_found")
async def _(room: Room) -> Response:
    return await room.http.delete(f"{ACCOUNTS}/agents/{room.other['participantId']}/key", headers=room.owner["headers"])


# --- not_seated: a seat's commands from someone not at the table ------------------------------

for _op, _tail, _body in [
    ("start", "/start", None),
    ("leave", "/leave", None),
    ("preaction", "/preaction", {"preaction": None}),
    ("sitOut", "/sit-out", None),
    ("sitIn", "/sit-in", None),
    ("show", "/show", None),
    ("autoRebuy", "/auto-rebuy", {"enabled": False}),
    ("act", "/actions", {"type": "fold"}),
]:

    def _not_seated(room: Room, tail: str = _tail, body: dict | None = _body) -> Awaitable[Response]:
        return room.post(t(room.idle, tail), room.agent, json=body)

    case(_op, "not_seated")(_not_seated)


# --- conflict: an Idempotency-Key reused with another body ------------------------------------


def _reused(op: str, tail: str, first: dict, second: dict, where: str = "seated") -> None:
    async def run(room: Room) -> Response:
        table_id = room.seated if where == "seated" else await room.table()
        key = {"Idempotency-Key": f"{op}-{uuid.uuid4().hex}"}
        await room.post(t(table_id, tail), room.agent, json=first, headers=key)
        return await room.post(t(table_id, tail), room.agent, json=second, headers=key)

    case(op, "conflict")(run)


_reused("join", "/join", {"buyIn": 20}, {"buyIn": 30}, where="new")
_reused("preaction", "/preaction", {"preaction": None}, {"preaction": "fold"})
_reused("show", "/show", {}, {"handId": "another"})
_reused("autoRebuy", "/auto-rebuy", {"enabled": False}, {"enabled": True})
_reused("act", "/actions", {"type": "fold"}, {"type": "check"})


@case("chatPost", "conflict")
async def _(room: Room) -> Response:
    key = {"Idempotency-Key": uuid.uuid4().hex}
    await room.post(t(room.seated, "/chat"), room.agent, json={"text": "first"}, headers=key)
    return await room.post(t(room.seated, "/chat"), room.agent, json={"text": "second"}, headers=key)


@case("start", "conflict")
async def _(room: Room) -> Response:
    table_id = await room.table(start_mode=StartMode.AUTO)
    who = await room.fresh()
    await room.post(t(table_id, "/join"), who, json={"buyIn": 20})
    return await room.post(t(table_id, "/start"), who)


@case("signUp", "conflict")
async def _(room: Room) -> Response:
    return await room.http.post(f"{ACCOUNTS}/signup", json={"email": room.owner["email"], "password": "x" * 12})


@case("rename", "conflict")
async def _(room: Room) -> Response:
    taken = (await room.get(f"{ACCOUNTS}/me", room.owner)).json()["name"]
    return await room.http.put(f"{ACCOUNTS}/me/name", json={"name": taken}, headers=room.extra["person"]["headers"])


# --- join --------------------------------------------------------------------------------------


@case("join", "table_closed")
async def _(room: Room) -> Response:
    table_id = await room.table()
    await call(room.bus, subjects.TABLE_CLOSE, CloseTable(table_id=table_id), TableSummary)
    return await room.post(t(table_id, "/join"), room.agent, json={"buyIn": 20})


@case("join", "admission")
async def _(room: Room) -> Response:
    return await room.post(t(await room.table(admission=Admission.HUMANS_ONLY), "/join"), room.agent, json={})


@case("join", "chips_in_play")
async def _(room: Room) -> Response:
    who = await room.fresh()
    hand = f"h{uuid.uuid4().hex[:12]}"
    commit = Commit(
        account_id=who["participantId"], table_id="elsewhere", hand_id=hand, seq=1, amount=10, from_available=True
    )
    await call(room.bus, subjects.WALLET_COMMIT, commit, CommitResult)
    return await room.post(t(room.idle, "/join"), who, json={"buyIn": 20})


@case("join", "already_seated")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/join"), room.agent, json={"buyIn": 20})


@case("join", "table_full")
async def _(room: Room) -> Response:
    table_id = await room.table(seats=2)
    for who in (room.owner, room.other):  # the owner's person: its agent sits elsewhere
        await room.post(t(table_id, "/join"), who, json={"buyIn": 20})
    return await room.post(t(table_id, "/join"), await room.stranger(), json={"buyIn": 20})


@case("join", "insufficient_funds")
async def _(room: Room) -> Response:
    return await room.post(t(await room.table(min_buy_in=500, max_buy_in=1000), "/join"), room.other, json={})


@case("join", "invalid_amount")
async def _(room: Room) -> Response:
    return await room.post(t(room.idle, "/join"), room.other, json={"buyIn": 5})


@case("join", "limit_exceeded")
async def _(room: Room) -> Response:
    who = await room.fresh()
    await room.post(f"{POKER}/limits/caps", who, json={"scope": "participant", "limit": "daily_buy_in", "cap": 10})
    return await room.post(t(room.idle, "/join"), who, json={"buyIn": 20})


@case("join", "frozen")
async def _(room: Room) -> Response:
    who = await room.fresh()
    await room.post(f"{POKER}/limits/freeze", who, json={"scope": "participant", "frozen": True})
    return await room.post(t(room.idle, "/join"), who, json={"buyIn": 20})


# --- play --------------------------------------------------------------------------------------


@case("start", "table_closed")
async def _(room: Room) -> Response:  # closing: the hand running plays on, nothing starts after it
    table_id, players, _ = room.extra["folded"]
    for p in reversed(players):
        await room.post(t(table_id, "/start"), p)
    await call(room.bus, subjects.TABLE_CLOSE, CloseTable(table_id=table_id), TableSummary)
    return await room.post(t(table_id, "/start"), players[0])


@case("preaction", "hand_closed")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/preaction"), room.agent, json={"preaction": "fold"})


@case("preaction", "illegal_action")
async def _(room: Room) -> Response:  # check/fold once someone raised this round
    table_id = await room.running()
    raiser = room.mover(True)
    await room.post(t(table_id, "/actions"), raiser, json=_turn(room, type="raiseTo", amount=6))
    return await room.post(t(table_id, "/preaction"), raiser, json={"preaction": "check_fold"})


@case("show", "hand_closed")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/show"), room.agent, json={"handId": "not-this-hand"})


@case("show", "illegal_action")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/show"), room.agent, json={})


@case("autoRebuy", "forbidden")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/auto-rebuy"), room.agent, json={"enabled": True})


def _turn(room: Room, **extra: Any) -> dict:
    hand = room.playing[2]["hand"]
    return {"handId": hand["handId"], "turnId": hand["turnId"], **extra}


@case("act", "hand_closed")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/actions"), room.agent, json={"type": "fold"})


@case("act", "illegal_action")
async def _(room: Room) -> Response:  # `hit` is ante-nl-1's
    return await room.post(t(await room.running(), "/actions"), room.mover(True), json=_turn(room, type="hit"))


@case("act", "not_your_turn")
async def _(room: Room) -> Response:
    return await room.post(t(await room.running(), "/actions"), room.mover(False), json={"type": "fold"})


@case("act", "stale_turn")
async def _(room: Room) -> Response:
    table_id = await room.running()
    body = _turn(room, type="fold", turnId=room.playing[2]["hand"]["turnId"] + 7)
    return await room.post(t(table_id, "/actions"), room.mover(True), json=body)


@case("act", "invalid_amount")
async def _(room: Room) -> Response:
    return await room.post(
        t(await room.running(), "/actions"), room.mover(True), json=_turn(room, type="raiseTo", amount=10**9)
    )


@case("act", "limit_exceeded")
async def _(room: Room) -> Response:
    table_id = await room.table()
    players = [await room.stranger(), await room.stranger()]
    for p in players:
        await room.post(f"{POKER}/limits/caps", p, json={"scope": "participant", "limit": "daily_wager", "cap": 4})
        await room.post(t(table_id, "/join"), p, json={"buyIn": 100})
    for p in players:
        await room.post(t(table_id, "/start"), p)
    view = (await room.get(t(table_id), players[0])).json()["table"]
    seat = {s["participantId"]: s["seat"] for s in view["seats"]}
    actor = next(p for p in players if seat[p["participantId"]] == view["hand"]["actorSeatId"])
    body = {"type": "raiseTo", "amount": 8, "handId": view["hand"]["handId"], "turnId": view["hand"]["turnId"]}
    return await room.post(t(table_id, "/actions"), actor, json=body)


# --- chat --------------------------------------------------------------------------------------


@case("chatPost", "forbidden")
async def _(room: Room) -> Response:
    return await room.post(t(room.idle, "/chat"), room.other, json={"text": "hello"})


@case("chatPost", "invalid_message")
async def _(room: Room) -> Response:
    return await room.post(t(room.seated, "/chat"), room.agent, json={"text": "   "})


@case("chatPost", "throttled")
async def _(room: Room) -> Response:
    who = await room.stranger()
    await room.post(t(room.seated, "/join"), who, json={"buyIn": 20})
    for n in range(60):
        r = await room.post(t(room.seated, "/chat"), who, json={"text": f"line {n}"})
        if r.status_code != 200:
            return r
    return r


# --- money, limits and accounts -----------------------------------------------------------------


@case("refill", "frozen")
async def _(room: Room) -> Response:
    who = await room.fresh()
    await room.post(f"{POKER}/limits/freeze", who, json={"scope": "participant", "frozen": True})
    return await room.post(f"{POKER}/refill", who, json={"refillId": "r1"})


@case("refill", "refill_too_soon")
async def _(room: Room) -> Response:
    who = await room.fresh()
    await room.post(f"{POKER}/refill", who, json={"refillId": "r1"})
    return await room.post(f"{POKER}/refill", who, json={"refillId": "r2"})


@case("refill", "refill_not_needed")
async def _(room: Room) -> Response:  # the big blind won the small blind's chip: 201, not below 201
    return await room.post(f"{POKER}/refill", room.extra["winner"], json={"refillId": "r1"})


@case("setCap", "forbidden")
async def _(room: Room) -> Response:  # an agent's key may only lower
    await room.post(
        f"{POKER}/limits/caps", room.other, json={"scope": "participant", "limit": "daily_buy_in", "cap": 10}
    )
    return await room.post(
        f"{POKER}/limits/caps", room.other, json={"scope": "participant", "limit": "daily_buy_in", "cap": 10**9}
    )


@case("freeze", "forbidden")
async def _(room: Room) -> Response:  # an agent's key may only freeze
    return await room.post(f"{POKER}/limits/freeze", room.other, json={"scope": "participant", "frozen": False})


@case("logIn", "unauthorized")
async def _(room: Room) -> Response:
    return await room.http.post(f"{ACCOUNTS}/login", json={"email": room.owner["email"], "password": "wrong password"})


@case("logIn", "throttled")
async def _(room: Room) -> Response:
    email = unique_email()
    for _ in range(40):
        r = await room.http.post(f"{ACCOUNTS}/login", json={"email": email, "password": "wrong password"})
        if r.status_code == 429:
            return r
    return r


# --- hosted tables -----------------------------------------------------------------------------

#: host control -> (method, path tail, two bodies that differ)
HOSTING = {
    "hostPause": ("post", "/host/pause", None, None),
    "hostResume": ("post", "/host/resume", None, None),
    "hostClose": ("post", "/host/close", None, None),
    "hostApprove": ("post", "/host/approve", {"participantId": "p1"}, {"participantId": "p2"}),
    "hostDecline": ("post", "/host/decline", {"participantId": "p1"}, {"participantId": "p2"}),
    "hostRemove": ("post", "/host/remove", {"participantId": "p1"}, {"participantId": "p2"}),
    "hostBlinds": ("post", "/host/blinds", {"smallBlind": 2, "bigBlind": 4}, {"smallBlind": 3, "bigBlind": 6}),
    "rotateInvite": ("post", "/invite", None, None),
    "revokeInvite": ("delete", "/invite", None, None),
    "addBot": ("post", "/host/bots", {"level": "easy"}, {"level": "hard"}),
    "removeBot": ("delete", "/host/bots/p1", None, None),
}


#: a hosted table's stakes: the buy-in a new account covers
HOSTED = {"rulesVersion": "nlhe-1", "smallBlind": 1, "bigBlind": 2, "minBuyIn": 20, "maxBuyIn": 200}


async def hosted(room: Room, who: dict, **body: Any) -> str:
    r = await room.post(f"{POKER}/tables", who, json={**HOSTED, **body})
    assert r.status_code == 201, r.text
    room.extra.setdefault("codes", {})[r.json()["table"]["tableId"]] = r.json().get("inviteCode")
    return r.json()["table"]["tableId"]


def _control(op: str, table: str, who: str, body: int = 0, key: str | None = None) -> Case:
    method, tail, *bodies = HOSTING[op]

    async def run(room: Room) -> Response:
        table_id = room.extra[table] if table != "unknown" else "not-a-table!"
        kw = {"json": bodies[body]} if bodies[body] is not None else {}
        headers = {**room.extra[who]["headers"], **({"Idempotency-Key": key} if key else {})}
        return await room.http.request(method.upper(), t(table_id, tail), headers=headers, **kw)

    return run


for _op in HOSTING:
    case(_op, "not_found")(_control(_op, "unknown", "host"))
    case(_op, "not_host")(_control(_op, "hosted", "stranger_at_hosted"))
    case(_op, "table_closed")(_control(_op, "closed", "host"))

for _op in ("hostApprove", "hostDecline", "hostRemove", "hostBlinds", "rotateInvite"):

    def _reused_control(room: Room, op: str = _op) -> Awaitable[Response]:
        async def twice() -> Response:
            key = f"{op}-{uuid.uuid4().hex}"
            await _control(op, "hosted", "host", 0, key)(room)
            return await _control(op, "hosted", "host", 1 if HOSTING[op][2] else 0, key)(room)

        return twice()

    case(_op, "conflict")(_reused_control)


@case("createTable", "too_many_tables")
async def _(room: Room) -> Response:
    who = await room.stranger()
    for _ in range(3):  # the table service's `max_hosted_tables`
        await hosted(room, who)
    return await room.post(f"{POKER}/tables", who, json={"rulesVersion": "nlhe-1"})


@case("createTable", "conflict")
async def _(room: Room) -> Response:  # the key's table closed: another request may not reuse it
    who, key = await room.stranger(), {"Idempotency-Key": uuid.uuid4().hex}
    made = await room.post(f"{POKER}/tables", who, json={"rulesVersion": "nlhe-1"}, headers=key)
    await room.post(t(made.json()["table"]["tableId"], "/host/close"), who)
    return await room.post(f"{POKER}/tables", who, json={"rulesVersion": "nlhe-1", "seats": 4}, headers=key)


@case("invited", "invite_invalid")
async def _(room: Room) -> Response:
    return await room.get(f"{POKER}/invites/not-a-code", room.agent)


@case("join", "invite_invalid")
async def _(room: Room) -> Response:
    return await room.post(t(room.extra["private"], "/join"), room.other, json={"inviteCode": "wrong"})


@case("join", "forbidden")
async def _(room: Room) -> Response:  # the host removed this player
    who = room.extra["stranger_at_hosted"]
    await room.post(
        t(room.extra["hosted"], "/host/remove"), room.extra["host"], json={"participantId": who["participantId"]}
    )
    return await room.post(t(room.extra["hosted"], "/join"), who, json={"buyIn": 20})


@case("removeBot", "validation")
async def _(room: Room) -> Response:  # longer than any participant id
    return await room.http.delete(f"{POKER}/tables/{room.seated}/host/bots/{'0' * 201}", headers=room.owner["headers"])


# --- matches -----------------------------------------------------------------------------------


@case("getMatch", "not_found")
async def _(room: Room) -> Response:
    return await room.http.get(f"{POKER}/matches/abcdef0123456789")


@case("getMatch", "validation")
async def _(room: Room) -> Response:
    return await room.http.get(f"{POKER}/matches/NOT-AN-ID")


@case("startMatch", "forbidden")
async def _(room: Room) -> Response:  # a person's token: a match is an agent's
    return await room.post(f"{POKER}/matches", room.owner, json=room.extra["schemas"]["MatchBody"]["examples"][0])


# --- tournaments --------------------------------------------------------------------------------


async def tournament(room: Room, **over: Any) -> str:
    """A tournament of its own (a six-seat Sit & Go unless `over` says otherwise)."""
    d = definition(**over)
    await call(room.bus, subjects.TOURNAMENT_CREATE, CreateTournament(definition=d), TournamentView)
    return d.tournament_id


def entry_path(tid: str) -> str:
    return f"{POKER}/tournaments/{tid}/register"


@case("getTournament", "not_found")
async def _(room: Room) -> Response:
    return await room.get(f"{POKER}/tournaments/no-such-tournament", room.agent)


@case("getTournament", "validation")
async def _(room: Room) -> Response:
    return await room.get(f"{POKER}/tournaments/NOT-AN-ID", room.agent)


@case("register", "validation")
async def _(room: Room) -> Response:
    return await room.post(entry_path("NOT-AN-ID"), room.agent)


@case("unregister", "validation")
async def _(room: Room) -> Response:
    return await room.http.delete(entry_path("NOT-AN-ID"), headers=room.agent["headers"])


@case("register", "not_found")
async def _(room: Room) -> Response:
    return await room.post(entry_path("no-such-tournament"), room.agent)


@case("register", "already_registered")
async def _(room: Room) -> Response:
    tid, who = await tournament(room), await room.stranger()
    assert (await room.post(entry_path(tid), who)).status_code == 200
    return await room.post(entry_path(tid), who)


@case("register", "tournament_full")
async def _(room: Room) -> Response:  # a scheduled one waits for its time when full
    tid = await tournament(room, max_entrants=2, starts_at=datetime.now(UTC) + timedelta(hours=1))
    for _n in range(2):
        assert (await room.post(entry_path(tid), await room.stranger())).status_code == 200
    return await room.post(entry_path(tid), await room.stranger())


@case("register", "registration_closed")
async def _(room: Room) -> Response:
    tid = await tournament(room)
    await call(room.bus, subjects.TOURNAMENT_CANCEL, CancelTournament(tournament_id=tid), TournamentView)
    return await room.post(entry_path(tid), await room.stranger())


@case("register", "insufficient_funds")
async def _(room: Room) -> Response:
    return await room.post(entry_path(await tournament(room, buy_in=1000)), await room.stranger())


@case("register", "limit_exceeded")
async def _(room: Room) -> Response:
    who = await room.stranger()
    await room.post(f"{POKER}/limits/caps", who, json={"scope": "participant", "limit": "daily_buy_in", "cap": 10})
    return await room.post(entry_path(await tournament(room)), who)


@case("register", "frozen")
async def _(room: Room) -> Response:
    who = await room.stranger()
    await room.post(f"{POKER}/limits/freeze", who, json={"scope": "participant", "frozen": True})
    return await room.post(entry_path(await tournament(room)), who)


@case("unregister", "not_found")
async def _(room: Room) -> Response:
    return await room.http.delete(entry_path("no-such-tournament"), headers=room.agent["headers"])


@case("unregister", "not_registered")
async def _(room: Room) -> Response:
    return await room.http.delete(entry_path(await tournament(room)), headers=room.agent["headers"])


@case("unregister", "tournament_started")
async def _(room: Room) -> Response:  # a heads-up Sit & Go starts when its second player registers
    tid, players = await tournament(room, max_entrants=2), [await room.stranger(), await room.stranger()]
    for p in players:
        assert (await room.post(entry_path(tid), p)).status_code == 200
    return await room.http.delete(entry_path(tid), headers=players[0]["headers"])


#: listed codes this room cannot reach, and where they are reached instead
ELSEWHERE = {
    ("startMatch", "conflict"): "tests/bots/test_ladder.py: a room with the bots service",
    ("startMatch", "limit_exceeded"): "tests/bots/test_ladder.py: a room with the bots service",
    **{
        ("hostApprove", code): "approve seats through the join's own checks: join's cases reach each"
        for code in (
            "admission",
            "already_seated",
            "chips_in_play",
            "table_full",
            "insufficient_funds",
            "invalid_amount",
            "limit_exceeded",
            "frozen",
        )
    },
}


# --- the codes a route's signature implies, from the document --------------------------------


def bad_value(schema: dict[str, Any]) -> str:
    """A query or header value its schema refuses."""
    options = schema.get("anyOf", [schema])
    kinds = {o.get("type") for o in options}
    if kinds & {"integer", "number", "boolean"}:
        return "x"
    limit = max((o.get("maxLength", 0) for o in options), default=0)
    return "a" * (limit + 1) if limit else "\x01zzz"


def implied_request(room: Room, entry: dict[str, Any], code: str, who: dict | None = None) -> Awaitable[Response]:
    path = entry["path"].replace("{table_id}", room.seated).replace("{match_id}", "abcdef0123456789")
    path = path.replace("{tournament_id}", "no-such-tournament")
    for name in ("agent_id", "hand_id", "code"):
        path = path.replace(f"{{{name}}}", "x")
    who = who or (room.agent if code == "forbidden" else room.owner)
    headers = {} if code == "unauthorized" else dict(who["headers"])
    kw: dict[str, Any] = {}
    body = entry["op"].get("requestBody")
    if code == "malformed":
        kw["content"] = b'{"not json'
        headers["Content-Type"] = "application/json"
    elif code == "validation" and body is not None:
        kw["json"] = {"noSuchField": 1}
    elif code == "validation":
        parameter = next(
            p for p in entry["op"]["parameters"] if p["in"] in ("query", "header") and p["name"] != "X-Correlation-Id"
        )
        value = bad_value(parameter["schema"])
        if parameter["in"] == "query":
            kw["params"] = {parameter["name"]: value}
        else:
            headers[parameter["name"]] = value
    if code == "unavailable" and "{hand_id}" in entry["path"]:
        kw["params"] = {"tableId": room.seated}  # the hand's table is asked
    if body is not None and code not in ("malformed", "validation"):
        schema = body["content"]["application/json"]["schema"]
        ref = schema.get("$ref") or next(s["$ref"] for s in schema.get("anyOf", ()) if "$ref" in s)
        kw["json"] = room.extra["schemas"][ref.rsplit("/", 1)[-1]]["examples"][0]
    return room.http.request(entry["method"], path, headers=headers, **kw)


async def check(entry: dict[str, Any], op: str, code: str, response: Response) -> str | None:
    """None when `response` is `code` at its listed status, else what went wrong."""
    try:
        got = response.json().get("code")
    except ValueError:
        got = None
    if response.status_code == status_for(code) and got == code:
        return None
    return f"{op} {code}: got {response.status_code} {response.text[:200]}"


async def test_every_listed_code_of_every_route_is_reached(stack, http, bus) -> None:
    spec = document()
    routes = listed(spec)
    signature = implied_codes()
    wanted = {(op, code) for op, entry in routes.items() for code in entry["codes"] if code != "unavailable"}
    generic = {(op, code) for op, codes in signature.items() for code in codes} - set(CASES)
    assert not set(CASES) - wanted, f"cases for codes the routes do not list: {sorted(set(CASES) - wanted)}"
    unreached = wanted - set(CASES) - generic - set(ELSEWHERE)
    assert not unreached, f"listed, never reached: {sorted(unreached)}"

    owner = await sign_up(http)
    agent, other = await new_agent(http, owner), await new_agent(http, await sign_up(http))
    room = Room(http, bus, owner, agent, other, idle=await create_table(bus), seated=await create_table(bus))
    owners = await asyncio.gather(*(sign_up(http) for _ in range(STRANGERS + 1)))
    room.extra["strangers"] = list(await asyncio.gather(*(new_agent(http, o) for o in owners[1:])))
    room.extra["person"] = owners[0]
    room.extra["schemas"] = spec["components"]["schemas"]
    assert (await room.post(t(room.seated, "/join"), agent, json={"buyIn": 20})).status_code == 200
    # a hand folded at once elsewhere: the big blind wins the small blind's chip
    folded = Room(http, bus, owner, agent, other, room.idle, room.seated, playing=await room.heads_up())
    room.extra["folded"] = folded.playing
    small, big = folded.mover(True), folded.mover(False)
    r = await room.post(t(folded.playing[0], "/actions"), small, json={"type": "fold", **_turn(folded)})
    assert r.status_code == 200, r.text
    room.extra["winner"] = big
    # hosted tables: one open, one private, one closed by its host
    room.extra["host"] = host = await room.stranger()
    room.extra["hosted"] = await hosted(room, host)
    room.extra["private"] = await hosted(room, host, visibility="private")
    room.extra["closed"] = await hosted(room, host)
    assert (await room.post(t(room.extra["closed"], "/host/close"), host)).status_code == 200
    room.extra["stranger_at_hosted"] = seated_there = await room.stranger()
    assert (await room.post(t(room.extra["hosted"], "/join"), seated_there, json={"buyIn": 20})).status_code == 200

    async def settled() -> bool:
        balance = (await room.get(f"{POKER}/refill", big)).json()
        return balance["status"] == "has_chips"

    await eventually(settled, timeout=30)

    failures = []
    for (op, code), run in sorted(CASES.items()):
        failures.append(await check(routes[op], op, code, await run(room)))
    for op, code in sorted(generic & wanted):
        failures.append(await check(routes[op], op, code, await implied_request(room, routes[op], code)))
    assert [f for f in failures if f] == [], "\n".join(f for f in failures if f)


async def test_unavailable_is_reached_on_every_route_that_lists_it(tmp_path: Path) -> None:
    """Only the gateway and, until the accounts exist, the wallet: every other service is away."""
    spec = document()
    routes = {op: e for op, e in listed(spec).items() if "unavailable" in e["codes"]}
    owners_only = {op for op, codes in implied_codes().items() if "forbidden" in codes}
    with nats_server(tmp_path / "nats") as nats_url, redis_server(tmp_path / "redis") as redis_url:
        runner = ServiceRunner(nats_url, redis_url, tmp_path)
        db = f"sqlite+aiosqlite:///{tmp_path / 'felt.sqlite'}"
        try:
            wallet = runner.start("wallet", database_url=db, ready=False)
            gateway = runner.start("gateway", database_url=db, ready=False)
            wallet.wait_ready(90)
            gateway.wait_ready(90)
            async with httpx.AsyncClient(base_url=gateway.url, timeout=30) as http:
                owner = await sign_up(http)
                agent = await new_agent(http, owner)
                wallet.stop()
                room = Room(http, None, owner, agent, agent, idle="gone", seated="gone")
                room.extra["schemas"] = spec["components"]["schemas"]
                failures = []
                for op, entry in sorted(routes.items()):
                    who = owner if op in owners_only else agent
                    response = await implied_request(room, entry, "unavailable", who)
                    failures.append(await check(entry, op, "unavailable", response))
                assert [f for f in failures if f] == [], "\n".join(f for f in failures if f)
                assert len(routes) > 20
        finally:
            runner.stop_all()
