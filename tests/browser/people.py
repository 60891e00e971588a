"""A person in front of the page: a browser context of their own, what they click and type, and
the wire between their page and the room (every frame the page sends is recorded; events
from the room can be held back, and the connection can be dropped)."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

PASSWORD = "correct horse battery"


@dataclass
class Wire:
    """The page's WebSocket, routed through the test: `sent` is every frame the page sent."""

    sent: list[dict[str, Any]] = field(default_factory=list)
    hold_events: bool = False
    held: list[str | bytes] = field(default_factory=list)
    refuse: bool = False
    live: list[tuple[WebSocketRoute, WebSocketRoute]] = field(default_factory=list)

    def route(self, ws: WebSocketRoute) -> None:
        if self.refuse:  # the room cannot be reached
            ws.close(code=4000, reason="unreachable")
            return
        server = ws.connect_to_server()
        self.live.append((ws, server))

        def from_page(message: str | bytes) -> None:
            if isinstance(message, str):
                self.sent.append(json.loads(message))
            server.send(message)

        def from_room(message: str | bytes) -> None:
            if (
                self.hold_events
                and isinstance(message, str)
                and json.loads(message).get("type") in ("event", "snapshot")
            ):
                self.held.append(message)
                return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_room)

    def release(self) -> None:
        self.hold_events = False
        ws = self.live[-1][0]
        for message in self.held:
            ws.send(message)
        self.held.clear()

    def drop(self) -> None:
        """The connection breaks: both ends are closed, as a lost network would."""
        for ws, server in self.live:
            server.close()
            ws.close(code=4000, reason="network lost")
        self.live.clear()

    def frames(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.sent if f.get("type") == kind]


@dataclass
class Person:
    name: str
    page: Page
    wire: Wire
    email: str = ""
    screen_name: str = ""  # what others see (never the email)
    errors: list[str] = field(default_factory=list)  # uncaught script errors in the page

    @classmethod
    def open(cls, browser: Any, url: str, name: str, viewport: dict[str, int]) -> "Person":
        context = browser.new_context(viewport=viewport, base_url=url)
        context.set_default_timeout(30_000)  # a loaded 2-core box is slow; nothing waits this long when all is well
        page = context.new_page()
        wire = Wire()
        page.route_web_socket(re.compile(r"/ws$"), wire.route)
        person = cls(name, page, wire)
        page.on("pageerror", lambda exc: person.errors.append(f"{exc}\n{exc.stack}"))
        page.goto("/")
        return person

    def close(self) -> None:
        self.page.context.close()

    # --- what they do -------------------------------------------------------------------

    def sign_up(self) -> None:
        self.email = f"{self.name}-{uuid.uuid4().hex[:6]}@example.org"
        self.screen_name = f"{self.name.capitalize()[:12]} {uuid.uuid4().hex[:6]}"
        form = self.page.locator("#signup-form")
        form.get_by_label("sign-up email").fill(self.email)
        form.get_by_label("sign-up password").fill(PASSWORD)
        form.get_by_label("sign-up screen name").fill(self.screen_name)
        form.get_by_role("button", name="create account").click()
        expect(self.page.locator("#view-lobby")).to_be_visible()

    def open_table(self, table_id: str) -> None:
        self.page.locator(f'#tables tr[data-table-id="{table_id}"]').get_by_role("button").click()
        expect(self.page.locator("#view-table")).to_be_visible()
        expect(self.page.locator("#table-title")).not_to_be_empty()

    def sit_down(self, buy_in: int | None = None) -> None:
        if buy_in is not None:
            self.page.locator("#buy-in").fill(str(buy_in))
        self.page.get_by_role("button", name="sit down").click()
        expect(self.page.locator(".seat.mine")).to_be_visible()

    # --- what they see ------------------------------------------------------------------

    @property
    def action_bar(self):
        return self.page.locator("#action-bar")

    def my_turn(self) -> bool:
        return self.action_bar.is_visible()

    def street(self) -> str:
        return self.page.locator(".centre .street").inner_text()

    def my_cards(self) -> list[str]:
        return self.page.locator(".seat.mine .card.face").evaluate_all("els => els.map(e => e.dataset.card)")

    def unnamed_controls(self) -> list[str]:
        """Visible buttons and inputs without an accessible name (aria-label, a label or text)."""
        return self.page.evaluate("""() => [...document.querySelectorAll('button, input, select, textarea, a[href]')]
            .filter((el) => el.offsetParent !== null)
            .filter((el) => !(el.getAttribute('aria-label') || (el.labels && el.labels.length) || el.textContent.trim()))
            .map((el) => el.outerHTML.slice(0, 80))""")

    def token(self) -> str:
        return self.page.evaluate("sessionStorage.getItem('felt.token')")
