"""Bot identities: one owner per bot (a table seats one participant per owner), each with one
agent. The owners' password is a secret kept in the room's var dir, so a restarted service
logs the same bots in again (and replaces their API keys) instead of creating new ones."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from felt_client import ApiError, FeltClient

NAMES = (
    "Ada",
    "Boole",
    "Cantor",
    "Dirac",
    "Euler",
    "Fermat",
    "Gauss",
    "Hilbert",
    "Ito",
    "Jacobi",
    "Kepler",
    "Lovelace",
    "Markov",
    "Noether",
    "Ostrowski",
    "Pascal",
    "Quine",
    "Ramanujan",
    "Shannon",
    "Turing",
)


@dataclass(frozen=True)
class Identity:
    number: int
    name: str
    participant_id: str
    api_key: str


def secret(var_dir: Path) -> str:
    path = var_dir / "bots.secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(24))
        path.chmod(0o600)
    return path.read_text().strip()


def bot_name(number: int, level: str) -> str:
    base = NAMES[number % len(NAMES)] + (f" {number // len(NAMES) + 1}" if number >= len(NAMES) else "")
    return f"{base} ({level})"


async def identity(gateway_url: str, number: int, level: str, password: str, domain: str) -> Identity:
    """Sign up (or log in) owner number `number` and return its agent with a fresh API key."""
    email = f"bot{number}@{domain}"
    name = bot_name(number, level)
    async with FeltClient(gateway_url) as owner:
        try:
            await owner.sign_up(email, password)
        except ApiError as exc:
            if exc.code != "conflict":
                raise
        await owner.log_in(email, password)
        agents = [p for p in (await owner.me())["participants"] if p["kind"] == "AGENT"]
        key = await (owner.rotate_key(agents[0]["participantId"]) if agents else owner.create_agent(name))
    return Identity(number, name, key.participant_id, key.api_key)
