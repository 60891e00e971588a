"""The room's dependencies: those listed in pyproject.toml (`[tool.felt]`) and the agents' client,
a distribution of its own in libs/felt_client. A dependency on a directory is named by an absolute
file URL, known only when the room is built, so it is added here."""

import tomllib
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
LISTED = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["felt"]["dependencies"]

setup(install_requires=[*LISTED, f"felt-client @ {(ROOT / 'libs' / 'felt_client').as_uri()}"])
