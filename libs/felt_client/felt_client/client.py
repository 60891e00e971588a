"""`FeltClient`: every call of the agent API over httpx, with the retry rules every agent needs.

- Every POST the client may send twice carries an `Idempotency-Key` (one per call, the same on
  each try): the room applies it once, however many tries reached it. A request that got no
  answer (connection refused or reset, timeout) or a 502/503/504 is tried again with backoff.
  The POSTs that take no key (accounts, agents and keys, caps and freeze) are tried again only
  when they were never sent (the connection could not be opened) or were refused with 429.
- 429: wait `Retry-After` (or the backoff), then try again; so for 409 `in_progress` (the first
  try of this key is still running).
- 409 on an action: the table is read again and `Conflict(view=...)` raised, so the caller
  decides on the turn as it is now.
- Seats this client took are remembered: when a view shows the seat gone (the table service
  restarted and cleared its seats), the client joins again with the same arguments.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from felt_client.backoff import Backoff
from felt_client.errors import ApiError, Conflict
from felt_client.models import (
    AgentKey,
    Balance,
    CommandResult,
    Event,
    EventPage,
    HandPage,
    LeaderboardPage,
    Page,
    SessionPage,
    TableView,
)

POKER = "/api/v2/poker"
ACCOUNTS = "/api/v2/accounts"
#: the answers worth another try: the room did not answer (503) or asked us to slow down (429)
RETRY_STATUS = frozenset({429, 502, 503, 504})
#: refusals after which a remembered seat is not taken again by itself
NO_REJOIN = frozenset({"insufficient_funds", "limit_exceeded", "frozen", "admission", "not_found", "chips_in_play"})


@dataclass(frozen=True)
class Retry:
    """Backoff: `base * 2**n` seconds (capped, with jitter), `attempts` tries in all."""

    attempts: int = 8
    base: float = 0.2
    cap: float = 5.0

    def delay(self, n: int, rng: random.Random) -> float:
        """The wait before attempt `n + 1` (`n` failures so far), jittered to 50-100%."""
        return Backoff(self.base, self.cap).delay(n + 1) * (0.5 + rng.random() / 2)


def new_key() -> str:
    """A fresh `Idempotency-Key`."""
    return uuid.uuid4().hex


class FeltClient:
    """One participant's (or owner's) session with a Felt gateway.

    `api_key` acts as an agent; `token` (from `log_in`) as the owner's human participant and
    manages agents. `transport` lets tests and benchmarks plug in an ASGI app."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        token: str | None = None,
        retry: Retry = Retry(),
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
        event_hooks: dict[str, list[Any]] | None = None,
    ) -> None:
        self.retry = retry
        self.credential = api_key or token
        self.seats: dict[str, dict[str, Any]] = {}  # table id -> the join body, while we mean to sit there
        self._rng = random.Random()
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), timeout=timeout, transport=transport, event_hooks=event_hooks or {}
        )

    async def __aenter__(self) -> "FeltClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- the one request loop ------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """One API call with the retry rules; the decoded JSON (or text) of a 2xx answer,
        otherwise `ApiError`. A POST without `idempotency_key` is sent again only when it
        provably did nothing (never sent, or 429)."""
        headers = {}
        if self.credential:
            headers["Authorization"] = f"Bearer {self.credential}"
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        repeatable = method != "POST" or idempotency_key is not None
        for n in range(self.retry.attempts):
            last = n == self.retry.attempts - 1
            try:
                response = await self._http.request(
                    method,
                    path,
                    json=json,
                    params=params,
                    headers=headers,
                    timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
                )
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                unsent = isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout))
                if last or not (repeatable or unsent):
                    raise ApiError(
                        503, "unavailable", f"no answer from {self._http.base_url}: {type(exc).__name__}"
                    ) from exc
                await asyncio.sleep(self.retry.delay(n, self._rng))
                continue
            if not last and self._again(response, repeatable):
                await asyncio.sleep(self._wait_for(response, n))
                continue
            if response.is_success:
                if response.status_code == 204 or not response.content:
                    return None
                if response.headers.get("content-type", "").startswith("application/json"):
                    return response.json()
                return response.text
            raise ApiError.from_response(response)
        raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns or raises

    @staticmethod
    def _again(response: httpx.Response, repeatable: bool) -> bool:
        """Whether an answer asks for another try of the same request."""
        if response.status_code == 429:
            return True
        if not repeatable:
            return False
        if response.status_code in RETRY_STATUS:
            return True
        return response.status_code == 409 and ApiError.from_response(response).details.get("reason") == "in_progress"

    def _wait_for(self, response: httpx.Response, n: int) -> float:
        after = response.headers.get("retry-after")
        if after:
            try:
                return min(float(after), 30.0)
            except ValueError:
                pass
        return self.retry.delay(n, self._rng)

    async def _post(self, path: str, body: Any = None, idempotency_key: str | None = None) -> Any:
        """A POST the room applies once per key: a fresh key unless the caller gives one."""
        return await self.request("POST", path, json=body, idempotency_key=idempotency_key or new_key())

    async def _command(self, table_id: str, name: str, body: Any = None, key: str | None = None) -> CommandResult:
        return CommandResult.model_validate(await self._post(f"{POKER}/tables/{table_id}/{name}", body, key))

    # --- accounts ------------------------------------------------------------------------------

    async def sign_up(self, email: str, password: str) -> dict[str, Any]:
        return await self.request("POST", f"{ACCOUNTS}/signup", json={"email": email, "password": password})

    async def log_in(self, email: str, password: str) -> str:
        """Log in as the owner; later calls use the token."""
        body = await self.request("POST", f"{ACCOUNTS}/login", json={"email": email, "password": password})
        self.credential = body["token"]
        return body["token"]

    async def log_out(self) -> None:
        """Revoke this client's login token."""
        await self.request("POST", f"{ACCOUNTS}/logout")

    async def me(self) -> dict[str, Any]:
        return await self.request("GET", f"{ACCOUNTS}/me")

    async def create_agent(self, name: str) -> AgentKey:
        """A new agent and its API key. Not sent twice unless the first never left: a lost reply
        is `ApiError` `unavailable` (look at `me()` before creating another)."""
        return AgentKey.model_validate(await self.request("POST", f"{ACCOUNTS}/agents", json={"name": name}))

    async def rotate_key(self, agent_id: str) -> AgentKey:
        """Revoke the agent's live key and issue a new one (not sent twice, as `create_agent`)."""
        return AgentKey.model_validate(await self.request("POST", f"{ACCOUNTS}/agents/{agent_id}/key"))

    async def revoke_key(self, agent_id: str) -> dict[str, Any]:
        """Revoke the agent's live key, issuing none."""
        return await self.request("DELETE", f"{ACCOUNTS}/agents/{agent_id}/key")

    # --- lobby and seats -----------------------------------------------------------------------

    async def rules(self, rules_version: str = "nlhe-1") -> str:
        return (await self.request("GET", f"{POKER}/rules", params={"rulesVersion": rules_version}))["text"]

    async def tables(self, kind: str | None = None) -> list[dict[str, Any]]:
        return (await self.request("GET", f"{POKER}/tables", params={"kind": kind} if kind else None))["tables"]

    async def join(
        self,
        table_id: str,
        buy_in: int | None = None,
        auto_rebuy: bool = False,
        idempotency_key: str | None = None,
        invite_code: str | None = None,
    ) -> CommandResult:
        """Take a seat (`buy_in` None: the server's default; `invite_code`: a private table's).
        Remembered for re-joining. At a table whose host approves each seat the status is
        `pending` until the host does."""
        body: dict[str, Any] = {"autoRebuy": auto_rebuy, **_given(buyIn=buy_in, inviteCode=invite_code)}
        try:
            result = await self._command(table_id, "join", body, idempotency_key)
        except ApiError as exc:
            if exc.code != "already_seated" or exc.details.get("reason") != "same_participant":
                raise
            view = await self._view(table_id)  # seated before, by this participant
            result = CommandResult(status="seated", seq=view.get("seq", 0), seat=view.get("yourSeatId"), table=view)
        self.seats[table_id] = body
        return result

    async def start(self, table_id: str, idempotency_key: str | None = None) -> CommandResult:
        """Explicit-start tables: ready, and start a hand once two are ready."""
        return await self._command(table_id, "start", None, idempotency_key)

    async def sit_out(self, table_id: str, idempotency_key: str | None = None) -> CommandResult:
        """Not dealt in from the next hand on; the seat is kept."""
        return await self._command(table_id, "sit-out", None, idempotency_key)

    async def sit_in(self, table_id: str, idempotency_key: str | None = None) -> CommandResult:
        return await self._command(table_id, "sit-in", None, idempotency_key)

    async def leave(self, table_id: str, idempotency_key: str | None = None) -> CommandResult:
        self.seats.pop(table_id, None)
        return await self._command(table_id, "leave", None, idempotency_key)

    async def preaction(
        self, table_id: str, preaction: str | None, idempotency_key: str | None = None
    ) -> CommandResult:
        """Tick a pre-action box for the current hand, one of the view's `hand.preactionsAvailable`
        (None clears it)."""
        return await self._command(table_id, "preaction", {"preaction": preaction}, idempotency_key)

    async def show(
        self, table_id: str, hand_id: str | None = None, idempotency_key: str | None = None
    ) -> CommandResult:
        """Show your cards of the hand just finished (`table.canShow`)."""
        return await self._command(table_id, "show", {"handId": hand_id}, idempotency_key)

    async def auto_rebuy(self, table_id: str, enabled: bool, idempotency_key: str | None = None) -> CommandResult:
        """Top the stack up to the table's maximum buy-in before each hand, while on."""
        return await self._command(table_id, "auto-rebuy", {"enabled": enabled}, idempotency_key)

    # --- play ----------------------------------------------------------------------------------

    async def view(self, table_id: str, invite: str | None = None) -> dict[str, Any]:
        """`GET /tables/{id}` as returned (`{"table": {...}}`; `invite`: a private table's code),
        after sitting down again if a seat this client holds was cleared by a restart of the table."""
        body = await self.request("GET", f"{POKER}/tables/{table_id}", params=_given(invite=invite) or None)
        table = body.get("table") or {}
        if table_id in self.seats and table.get("yourSeatId") is None:
            if await self._rejoin(table_id):
                body = await self.request("GET", f"{POKER}/tables/{table_id}")
        return body

    async def table(self, table_id: str) -> dict[str, Any]:
        """The `table` object of `view`."""
        return (await self.view(table_id)).get("table") or {}

    async def table_view(self, table_id: str) -> TableView:
        """The `table` object of `view`, typed."""
        return TableView.model_validate(await self.table(table_id))

    async def _view(self, table_id: str) -> dict[str, Any]:
        return (await self.request("GET", f"{POKER}/tables/{table_id}")).get("table") or {}

    async def _rejoin(self, table_id: str) -> bool:
        try:
            await self._command(table_id, "join", self.seats[table_id])
        except ApiError as exc:
            if exc.code == "already_seated":
                return True
            if exc.code in NO_REJOIN:
                self.seats.pop(table_id, None)
            return False
        return True

    async def act(
        self,
        table_id: str,
        action: dict[str, Any],
        *,
        hand_id: str | None = None,
        turn_id: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Send `action` (`{"type": "raiseTo", "amount": 60}`, ...) for the turn named by
        `hand_id`/`turn_id`. One idempotency key for all retries. A 409 raises `Conflict` with
        the table as it is now."""
        body = dict(action)
        if hand_id is not None:
            body["handId"] = hand_id
        if turn_id is not None:
            body["turnId"] = turn_id
        try:
            return await self._command(table_id, "actions", body, idempotency_key)
        except ApiError as exc:
            if exc.status != 409:
                raise
            raise Conflict(exc, await self.table(table_id)) from None

    async def poll(
        self,
        table_id: str,
        after: int = 0,
        wait: float = 0,
        limit: int = 500,
        wake: Literal["any", "mine"] = "any",
    ) -> EventPage:
        """One long-poll: events with `seq > after`; with `wait`, returns as soon as one happens
        (`wake="mine"`: as soon as one is yours alone, your cards or your turn, with every event
        before it)."""
        body = await self.request(
            "GET",
            f"{POKER}/tables/{table_id}/events",
            params={"after": after, "wait": wait, "limit": limit, "wake": wake},
            timeout=wait + 10,
        )
        return EventPage.model_validate(body)

    async def events(
        self, table_id: str, *, after: int = 0, wait: float = 30, wake: Literal["any", "mine"] = "any"
    ) -> AsyncIterator[Event]:
        """`async for event in client.events(table_id)`: the table's events, oldest first, for as
        long as the caller reads. A dropped connection or a room that does not answer is waited
        out, and reading resumes after the last event yielded: none is skipped or repeated."""
        cursor, failures = after, 0
        while True:
            try:
                page = await self.poll(table_id, after=cursor, wait=wait, wake=wake)
            except ApiError as exc:
                if exc.code != "unavailable":
                    raise
                await asyncio.sleep(self.retry.delay(failures, self._rng))
                failures += 1
                continue
            failures = 0
            for raw in page.events:
                event = Event.model_validate(raw)
                cursor = event.seq
                yield event
            cursor = max(cursor, page.last_seq)

    # --- hand histories ------------------------------------------------------------------------

    async def hands(
        self, table_id: str, mine: bool = False, limit: int = 50, after: str | None = None
    ) -> list[dict[str, Any]]:
        """A page of a table's finished hands, newest first (`mine`: only those you played);
        `all_hands` reads them all."""
        return (await self._page(HandPage, f"{POKER}/tables/{table_id}/hands", limit, after, mine=mine)).hands

    def all_hands(self, table_id: str, mine: bool = False, page: int = 100) -> AsyncIterator[dict[str, Any]]:
        """`async for hand in client.all_hands(table_id)`: every finished hand, newest first."""
        return self._every(HandPage, f"{POKER}/tables/{table_id}/hands", page, mine=mine)

    async def _page(self, model: type[Page], path: str, limit: int, after: str | None, **params: Any) -> Any:
        return model.model_validate(await self.request("GET", path, params=_given(limit=limit, after=after, **params)))

    async def _every(self, model: type[Page], path: str, limit: int, **params: Any) -> AsyncIterator[dict[str, Any]]:
        """The items of every page of a list, following `next` until the last page."""
        after: str | None = None
        while True:
            page = await self._page(model, path, limit, after, **params)
            for item in page.items():
                yield item
            if page.next is None:
                return
            after = page.next

    async def hand(self, hand_id: str, table_id: str | None = None) -> dict[str, Any]:
        """One finished hand as you may see it (JSON)."""
        return await self.request("GET", f"{POKER}/hands/{hand_id}", params=_given(tableId=table_id))

    async def hand_phh(self, hand_id: str, table_id: str | None = None) -> str:
        """One finished hand as PHH text."""
        return await self.request("GET", f"{POKER}/hands/{hand_id}.phh", params=_given(tableId=table_id))

    # --- chat, money and limits ----------------------------------------------------------------

    async def chat(self, table_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return (await self.request("GET", f"{POKER}/tables/{table_id}/chat", params={"limit": limit}))["messages"]

    async def say(self, table_id: str, text: str, idempotency_key: str | None = None) -> dict[str, Any]:
        return await self._post(f"{POKER}/tables/{table_id}/chat", {"text": text}, idempotency_key)

    async def balance(self) -> Balance:
        return Balance.model_validate(await self.request("GET", f"{POKER}/balance"))

    async def sessions(self, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]:
        """A page of your table sessions, newest first; `all_sessions` reads them all."""
        return (await self._page(SessionPage, f"{POKER}/sessions", limit, after)).sessions

    def all_sessions(self, page: int = 100) -> AsyncIterator[dict[str, Any]]:
        return self._every(SessionPage, f"{POKER}/sessions", page)

    async def leaderboard(self, limit: int = 10, after: str | None = None) -> list[dict[str, Any]]:
        """A page of the leaderboard, most chips first; `all_leaders` reads it all."""
        return (await self._page(LeaderboardPage, f"{POKER}/leaderboard", limit, after)).entries

    def all_leaders(self, page: int = 100) -> AsyncIterator[dict[str, Any]]:
        return self._every(LeaderboardPage, f"{POKER}/leaderboard", page)

    async def limits(self) -> dict[str, Any]:
        """Caps, what is used today, headroom, pending raises and freezes."""
        return await self.request("GET", f"{POKER}/limits")

    async def set_cap(self, limit: str, cap: int | None, scope: str = "owner") -> dict[str, Any]:
        """Lower (at once) or raise (after the cool-off; the owner's token only) a cap."""
        body = {"scope": scope, "limit": limit, "cap": cap}
        return await self.request("POST", f"{POKER}/limits/caps", json=body)

    async def freeze(self, frozen: bool = True, scope: str = "owner", reason: str = "") -> dict[str, Any]:
        """Stop new risk at once (unfreezing needs the owner's token)."""
        body = {"scope": scope, "frozen": frozen, "reason": reason}
        return await self.request("POST", f"{POKER}/limits/freeze", json=body)

    async def ladder(self, participant_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """Every agent's results (bb/100 with its 95% interval, in all and by opponents)."""
        params = _given(participantId=participant_id, limit=limit)
        return (await self.request("GET", f"{POKER}/ladder", params=params))["entries"]

    async def start_match(self, level: str, hands: int, idempotency_key: str | None = None) -> dict[str, Any]:
        """A benchmark match of this agent against a Felt bot `level` on duplicate deals: join
        the answer's `tableId` and play; `match(matchId)` reports the result."""
        return await self._post(f"{POKER}/matches", {"level": level, "hands": hands}, idempotency_key)

    async def match(self, match_id: str) -> dict[str, Any]:
        return await self.request("GET", f"{POKER}/matches/{match_id}")

    # --- tournaments -------------------------------------------------------------------------

    async def tournaments(self, *status: str) -> list[dict[str, Any]]:
        """Every tournament (or those in `status`: registering, running, finished...)."""
        params = {"status": list(status)} if status else None
        return (await self.request("GET", f"{POKER}/tournaments", params=params))["tournaments"]

    async def tournament(self, tournament_id: str) -> dict[str, Any]:
        """One tournament as you see it: level, blinds, players left, payouts, `yourPlace`,
        `yourTable` (the table you are seated at: play it as any table)."""
        return await self.request("GET", f"{POKER}/tournaments/{tournament_id}")

    async def register(self, tournament_id: str, idempotency_key: str | None = None) -> dict[str, Any]:
        """Enter with the buy-in (moved once over the retries, which carry one key)."""
        return await self._post(f"{POKER}/tournaments/{tournament_id}/register", None, idempotency_key)

    async def unregister(self, tournament_id: str) -> dict[str, Any]:
        """Leave before the start: the buy-in comes back."""
        return await self.request("DELETE", f"{POKER}/tournaments/{tournament_id}/register")

    # --- hosting a table ---------------------------------------------------------------------

    async def create_table(
        self, rules_version: str, idempotency_key: str | None = None, **settings: Any
    ) -> dict[str, Any]:
        """Create and host a table (`settings` in snake_case: `small_blind`, `big_blind`, `seats`,
        `visibility="private"`, `approval=True`, `max_hands`, `closes_in_minutes`...). Retries carry
        one key, so the room makes one table: `{table, inviteCode?, inviteUrl?}` (a retry's answer
        has no `inviteCode`: `new_invite` makes another)."""
        body = {"rulesVersion": rules_version, **{_camel(k): v for k, v in settings.items() if v is not None}}
        return await self._post(f"{POKER}/tables", body, idempotency_key)

    async def invited(self, code: str) -> dict[str, Any]:
        """The table an invite code opens: `{tableId, table}` (`invite_invalid` if none)."""
        return await self.request("GET", f"{POKER}/invites/{code}")

    async def new_invite(self, table_id: str) -> dict[str, Any]:
        """The host makes a new invite code (the old one stops working): `{inviteCode, inviteUrl}`.
        Not sent again after a lost reply: the room keeps only a code's hash, so a retry could not
        answer the code the first try made; call again for another (the lost one opens nothing
        once replaced)."""
        return await self.request("POST", f"{POKER}/tables/{table_id}/invite")

    async def revoke_invite(self, table_id: str) -> dict[str, Any]:
        return await self.request("DELETE", f"{POKER}/tables/{table_id}/invite")

    async def host(
        self, table_id: str, control: str, idempotency_key: str | None = None, **fields: Any
    ) -> dict[str, Any]:
        """A host control: `pause`, `resume`, `close`, `blinds` (`small_blind`, `big_blind`,
        `ante`, `ante_mode`), `approve` / `decline` / `remove` (`participant_id`). `{applied: now|next_hand, seq}`."""
        body = {_camel(k): v for k, v in fields.items() if v is not None} or None
        return await self._post(f"{POKER}/tables/{table_id}/host/{control}", body, idempotency_key)


def _given(**params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
