"""The browser client's pages: the room at `/` and an invite link `/t/<code>` are the same page
(`static/index.html`), which reads the invite code from its address and asks the API about it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Path as PathParam
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

#: the browser client (package data): index.html, ES modules, CSS; no build step
STATIC = Path(__file__).parent / "static"


def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def index() -> FileResponse:
    """The browser client: people play here."""
    return page()


async def invite(code: Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{4,128}$")]) -> FileResponse:
    """An invite link to a private table: the client page, which opens the invite's table."""
    return page()


def install(app: FastAPI) -> None:
    """After the API's routes: the pages, and `static/` at `/static`."""
    app.add_api_route("/", index, methods=["GET"], include_in_schema=False)
    app.add_api_route("/t/{code}", invite, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
