"""The default room's recurring Sit & Go with bots: a person registers, the bots service fills
the empty seats after its wait, the tournament plays to the end with the bots playing over REST,
and the next copy is open; `felt bots --tournament ID --count N` registers N bots."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.services import ServiceRunner
from tests.tournament.conftest import Room, short_template
from tests.tournament.test_sit_and_go import PLAY_ENV, agent, play
from tests.support.waiting import eventually


@pytest.fixture(scope="module")
def room(nats_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    workdir = tmp_path_factory.mktemp("fill")
    runner = ServiceRunner(nats_url, redis_url, workdir)
    db = f"sqlite+aiosqlite:///{workdir / 'felt.sqlite'}"
    env = {**PLAY_ENV, "felt_tournament_recurring_file": short_template(workdir / "sng.json", 1000, 5)}
    try:
        procs = {n: runner.start(n, database_url=db, ready=False, **env) for n in ("wallet", "limits", "timer")}
        procs["tournament"] = runner.start("tournament", database_url=db, ready=False, **env)
        for proc in procs.values():
            proc.wait_ready()
        procs["table"] = runner.start("table", database_url=db, **env)
        procs["gateway"] = runner.start("gateway", database_url=db, **env)
        procs["bots"] = runner.start(
            "bots",
            FELT_BOTS="0",
            FELT_BOTS_GATEWAY_URL=procs["gateway"].url,
            FELT_BOTS_THINK_SECONDS="0",
            FELT_BOTS_FILL_SECONDS="3",
            ready=False,
        )
        procs["bots"].wait_ready(timeout=90)
        yield Room(procs, db)
    finally:
        runner.stop_all()


async def test_bots_fill_the_recurring_sit_and_go_a_person_waits_in_and_play_it_to_the_end(room: Room) -> None:
    person = await agent(room.procs["gateway"].url, 0)
    me = (await person.balance()).account_id
    first = await eventually(
        lambda: person.tournaments("registering"),
        lambda ts: any(t["tournamentId"] == "sng-six-1" for t in ts),
        timeout=30,
        every=0.5,
        what="the recurring Sit & Go",
    )
    assert next(t for t in first if t["tournamentId"] == "sng-six-1")["entrants"] == 0  # bots wait for a person
    await person.register("sng-six-1")
    started = await eventually(
        lambda: person.tournament("sng-six-1"), lambda t: t["status"] == "running", timeout=120, every=1, what="bots"
    )
    assert started["entrants"] == 6
    end = await play(person, "sng-six-1", seed=1, seconds=600)  # the bots play over REST until placed
    assert end["yourPlace"] is not None
    done = await eventually(
        lambda: person.tournament("sng-six-1"), lambda t: t["status"] == "finished", timeout=600, every=1, what="end"
    )
    places = sorted(f["place"] for f in done["finishers"])
    assert len(places) == 6 and places[0] == 1 and None not in places  # equal stacks out in one hand share
    assert sum(f["prize"] for f in done["finishers"]) == done["prizePool"]
    assert any(t["tournamentId"] == "sng-six-2" for t in await person.tournaments("registering"))
    assert me in {f["participantId"] for f in done["finishers"]}


async def test_felt_bots_registers_bots_for_a_tournament(room: Room, nats_url: str) -> None:
    env = {**os.environ, "FELT_NATS_URL": nats_url}
    felt = str(Path(sys.executable).parent / "felt")
    person = await agent(room.procs["gateway"].url, 1)
    tid = await eventually(
        lambda: person.tournaments("registering"), lambda ts: bool(ts), timeout=30, every=0.5, what="an open copy"
    )
    tid = tid[0]["tournamentId"]
    ran = await asyncio.to_thread(
        subprocess.run,
        [felt, "bots", "--tournament", tid, "--count", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert len(ran.stdout.splitlines()) == 2 and (await person.tournament(tid))["entrants"] >= 2
    refused = await asyncio.to_thread(
        subprocess.run,
        [felt, "bots", "--tournament", "no-such", "--count", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1 and "not_found" in refused.stderr
