"""The three levels by name: `LEVELS["hard"](view, rng) -> action`."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from felt_bots import easy, hard, normal

Decide = Callable[[dict[str, Any], random.Random], dict[str, Any]]

LEVELS: dict[str, Decide] = {"easy": easy.decide, "normal": normal.decide, "hard": hard.decide}
