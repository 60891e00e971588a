"""The page's files: everything is in the repository (no CDN, no remote fonts, no build step),
shipped as package data, and text reaches the page only through textContent."""

from __future__ import annotations

import re
import tomllib
from fnmatch import fnmatch

from felt_gateway.app import STATIC
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
