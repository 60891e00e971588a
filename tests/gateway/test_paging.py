"""Cursor pagination of the hands list, sessions and the leaderboard: pages of `limit` joined by
`after=next` give the whole list in its stable order, each item once, `next` null on the last
page; a cursor another list wrote is 422 `validation` on `after`; felt_client's iterators read
every page."""

from __future__ import annotations

from felt_client import FeltClient
from tests.gateway.test_play import bus, heads_up  # noqa: F401 - the fixture
from tests.support.gateway import create_table, new_agent, sign_up

POKER = "/api/v2/poker"


async def pages(http, path: str, items: str, limit: int, headers: dict, **params) -> list[list[dict]]:
    """Every page of a list, following `next`."""
    found: list[list[dict]] = []
    after = None
    while True:
        query = {"limit": limit, **params, **({"after": after} if after else {})}
        r = await http.get(path, params=query, headers=headers)
        assert r.status_code == 200, r.text
        body = r.json()
        found.append(body[items])
        if body["next"] is None:
            return found
        assert len(body[items]) == limit
        after = body["next"]


async def still_board(http, headers: dict, read) -> tuple[list[dict], list]:
    """The big-page leaderboard and what `read()` returned while the board stood still: each page
    is the board as it is read, and other tests' tables (turn timers, cash-outs) move totals on the
    shared room, so a paged read counts only when a big-page read before and after it agree."""
    path = f"{POKER}/leaderboard"
    for _ in range(10):
        before = [e for p in await pages(http, path, "entries", 100, headers) for e in p]
        got = await read()
        if before == [e for p in await pages(http, path, "entries", 100, headers) for e in p]:
            return before, got
    raise AssertionError("the leaderboard never stood still for ten reads")


async def fold_a_hand(http, table_id: str, players: list[dict]) -> None:
    """Deal the next hand (both ready) and fold it at once."""
    for p in players:
        await http.post(f"{POKER}/tables/{table_id}/start", headers=p["headers"])
    view = (await http.get(f"{POKER}/tables/{table_id}", headers=players[0]["headers"])).json()["table"]
    hand = view["hand"]
    actor = next(s["participantId"] for s in view["seats"] if s["seat"] == hand["actorSeatId"])
    mover = next(p for p in players if p["participantId"] == actor)
    body = {"type": "fold", "handId": hand["handId"], "turnId": hand["turnId"]}
    r = await http.post(f"{POKER}/tables/{table_id}/actions", json=body, headers=mover["headers"])
    assert r.status_code == 200, r.text


async def test_hands_page_in_order_and_the_client_reads_every_page(stack, http, bus) -> None:
    table_id, players, view = await heads_up(http, bus)
    hand = view["hand"]
    actor = next(s["participantId"] for s in view["seats"] if s["seat"] == hand["actorSeatId"])
    mover = next(p for p in players if p["participantId"] == actor)
    body = {"type": "fold", "handId": hand["handId"], "turnId": hand["turnId"]}
    assert (
        await http.post(f"{POKER}/tables/{table_id}/actions", json=body, headers=mover["headers"])
    ).status_code == 200
    for _ in range(2):
        await fold_a_hand(http, table_id, players)
    path, headers = f"{POKER}/tables/{table_id}/hands", players[0]["headers"]
    whole = (await http.get(path, params={"limit": 50}, headers=headers)).json()
    assert len(whole["hands"]) == 3 and whole["next"] is None
    keys = [(h["endedAt"], h["handId"]) for h in whole["hands"]]
    assert keys == sorted(keys, reverse=True)
    paged = await pages(http, path, "hands", 2, headers)
    assert [len(p) for p in paged] == [2, 1]
    assert [h["handId"] for p in paged for h in p] == [h["handId"] for h in whole["hands"]]
    assert await pages(http, path, "hands", 1, headers, mine="true") == [[h] for h in whole["hands"]]
    async with FeltClient(stack.url, api_key=players[0]["apiKey"]) as client:
        assert [h["handId"] async for h in client.all_hands(table_id, page=1)] == [h["handId"] for h in whole["hands"]]
        first = (await http.get(path, params={"limit": 1}, headers=headers)).json()["next"]
        assert await client.hands(table_id, limit=1, after=first) == whole["hands"][1:2]


async def test_sessions_and_leaderboard_page_in_order(stack, http, bus) -> None:
    agent = await new_agent(http, await sign_up(http))
    for _ in range(3):
        table_id = await create_table(bus)
        r = await http.post(f"{POKER}/tables/{table_id}/join", json={"buyIn": 20}, headers=agent["headers"])
        assert r.status_code == 200, r.text
        assert (await http.post(f"{POKER}/tables/{table_id}/leave", headers=agent["headers"])).status_code == 200
    whole = (await http.get(f"{POKER}/sessions", headers=agent["headers"])).json()
    assert len(whole["sessions"]) == 3 and whole["next"] is None
    paged = await pages(http, f"{POKER}/sessions", "sessions", 2, agent["headers"])
    assert [s["sessionId"] for p in paged for s in p] == [s["sessionId"] for s in whole["sessions"]]
    keys = [s["openedAt"] for s in whole["sessions"]]
    assert keys == sorted(keys, reverse=True)

    async def by_threes() -> list[dict]:
        return [e for p in await pages(http, f"{POKER}/leaderboard", "entries", 3, agent["headers"]) for e in p]

    whole_board, board = await still_board(http, agent["headers"], by_threes)
    assert board == whole_board
    assert [e["rank"] for e in board] == list(range(1, len(board) + 1)) and len(board) > 3
    assert len({e["participantId"] for e in board}) == len(board)
    order = [(-e["total"], e["participantId"]) for e in board]
    assert order == sorted(order)
    async with FeltClient(stack.url, api_key=agent["apiKey"]) as client:
        assert [s["sessionId"] async for s in client.all_sessions(page=1)] == [
            s["sessionId"] for s in whole["sessions"]
        ]

        async def by_twos() -> list[str]:
            return [e["participantId"] async for e in client.all_leaders(page=2)]

        whole_board, ids = await still_board(http, agent["headers"], by_twos)
        assert ids == [e["participantId"] for e in whole_board]


async def test_a_cursor_of_another_list_is_refused(stack, http, bus) -> None:
    agent = await new_agent(http, await sign_up(http))
    r = await http.get(f"{POKER}/leaderboard", params={"limit": 1}, headers=agent["headers"])
    foreign = r.json()["next"]
    assert foreign
    table_id = await create_table(bus)
    for path in (f"{POKER}/sessions", f"{POKER}/tables/{table_id}/hands"):
        r = await http.get(path, params={"after": foreign}, headers=agent["headers"])
        assert r.status_code == 422 and r.json()["code"] == "validation", r.text
        assert r.json()["details"]["field"] == "after"
    r = await http.get(f"{POKER}/leaderboard", params={"after": "not a cursor"}, headers=agent["headers"])
    assert r.status_code == 422 and r.json()["code"] == "validation"
