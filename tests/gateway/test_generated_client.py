"""An SDK generator reads the room's OpenAPI as it is served: openapi-python-client writes a
client from `/openapi.json` without one warning, and that client, imported as generated, plays
a hand to its end against the real room (two agents, legal actions from the view)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tests.gateway.test_play import bus  # noqa: F401 - the fixture
from tests.support.gateway import choose, create_table, new_agent, sign_up

PACKAGE = "felt_generated"


def generate(url: str, where: Path) -> subprocess.CompletedProcess[str]:
    (where / "openapi.json").write_bytes(httpx.get(f"{url}/openapi.json", timeout=30).content)
    (where / "config.yaml").write_text(
        f"project_name_override: {PACKAGE}\npackage_name_override: {PACKAGE}\npost_hooks: []\n"
    )
    generator = Path(sys.executable).with_name("openapi-python-client")
    return subprocess.run(
        [str(generator), "generate", "--path", "openapi.json", "--meta", "none", "--output-path", PACKAGE]
        + ["--config", "config.yaml", "--overwrite"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def generated(stack, tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    where = tmp_path_factory.mktemp("generated")
    return generate(stack.url, where), where


def test_the_generator_reads_the_openapi_without_warnings(generated) -> None:
    done, where = generated
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert said == [f"Generating {PACKAGE}"], "\n".join(said)  # any warning, skipped endpoint or hook fails
    assert (where / PACKAGE / "api" / "poker" / "act.py").exists()


def load(where: Path) -> ModuleType:
    sys.path.insert(0, str(where))
    try:
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]  # a stack of another database generated its own
        return importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))


async def test_the_generated_client_plays_a_hand(stack, http, bus, generated) -> None:
    done, where = generated
    assert done.returncode == 0, done.stderr
    load(where)
    api = importlib.import_module(f"{PACKAGE}.api.poker")
    models = importlib.import_module(f"{PACKAGE}.models")
    client_module = importlib.import_module(f"{PACKAGE}.client")
    table_id = await create_table(bus)
    clients = []
    for _ in range(2):
        agent = await new_agent(http, await sign_up(http))
        clients.append(client_module.AuthenticatedClient(base_url=stack.url, token=agent["apiKey"], timeout=30))
    join, start, view, act = (importlib.import_module(f"{api.__name__}.{n}") for n in ("join", "start", "view", "act"))
    for client in clients:
        joined = await join.asyncio_detailed(table_id, client=client, body=models.JoinBody(buy_in=100))
        assert joined.status_code == 200, joined.content
    for client in reversed(clients):  # the second `start` finds both ready and deals
        await start.asyncio_detailed(table_id, client=client)
    hand_id, turns = None, 0
    while turns < 200:
        views = [(await view.asyncio(table_id, client=c)).table for c in clients]
        hand = views[0].hand
        hand_id = hand_id or hand.hand_id
        if hand.hand_id != hand_id or hand.phase == models.HandViewPhase.OVER:
            break
        mover, seen = next((c, v) for c, v in zip(clients, views) if v.your_seat_id == hand.actor_seat_id)
        choice = choose(seen.hand.legal_actions.to_dict())
        body = models.ActionBody(type_=models.ActionBodyType(choice["type"]), hand_id=hand_id, turn_id=hand.turn_id)
        acted = await act.asyncio_detailed(table_id, client=mover, body=body)
        assert acted.status_code == 200, acted.content
        turns += 1
    assert hand_id is not None and turns > 0
    hands = importlib.import_module(f"{api.__name__}.hands")
    finished = await hands.asyncio(table_id, client=clients[0])
    assert hand_id in [h.hand_id for h in finished.hands]
