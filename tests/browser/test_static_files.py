"""The page's files: everything is in the repository (no CDN, no remote fonts, no build step),
shipped as package data, and text reaches the page only through textContent; the page is served
at `/` and at an invite link `/t/<code>`."""

from __future__ import annotations

import re
import tomllib
from fnmatch import fnmatch

from starlette.testclient import TestClient

from felt_gateway.app import make
from felt_gateway.pages import STATIC
from felt_runtime.settings import Settings
from tests.gateway.conftest import repo_path

FILES = sorted(p for p in STATIC.rglob("*") if p.is_file())


def test_nothing_is_loaded_from_another_host():
    remote = re.compile(r"""(?:https?:)?//(?!www\.w3\.org/2000/svg)[a-z0-9.-]+\.[a-z]{2,}""", re.I)
    for path in FILES:
        text = path.read_text()
        assert not remote.findall(text), f"{path.name} refers to another host"
        assert "@import" not in text and "@font-face" not in text, path.name


def test_modules_are_plain_es_modules_that_never_write_html():
    scripts = [p for p in FILES if p.suffix == ".js"]
    assert {p.name for p in scripts} >= {
        "api.js",
        "socket.js",
        "lobby.js",
        "table.js",
        "cards.js",
        "chat.js",
        "controls.js",
    }
    for path in scripts:
        text = path.read_text()
        assert not re.search(r"\.(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write", text), path.name
        for imported in re.findall(r'from "\./([a-z]+\.js)"', text):
            assert (path.parent / imported).exists(), f"{path.name} imports a missing {imported}"


def test_the_static_files_are_package_data():
    config = tomllib.loads((repo_path() / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["*"]
    for path in FILES:
        relative = path.relative_to(STATIC.parent).as_posix()
        assert any(fnmatch(relative, pattern) for pattern in patterns), relative


def test_an_invite_link_serves_the_client_page():
    client = TestClient(make(Settings())[0])  # no lifespan: the pages need neither the bus nor a database
    index = client.get("/")
    assert index.status_code == 200 and "<title>Felt" in index.text
    invite = client.get("/t/Ab3_x-9kQ2")
    assert invite.status_code == 200 and invite.text == index.text
    assert client.get("/t/not%20a%20code").status_code >= 400
