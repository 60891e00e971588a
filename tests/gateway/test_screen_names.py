"""Screen names (docs/gateway.md "Screen names"): chosen at sign-up or generated, unique without
regard to case, never an email or part of one, changeable; existing accounts renamed by the
gateway's migration on SQLite and PostgreSQL. That no door shows an email is checked on a
played table in test_play.py."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.ext.asyncio import create_async_engine

from felt_runtime.db import _alembic_config, migrate
from tests.support.gateway import new_agent, sign_up, unique_email

PASSWORD = "correct horse battery"


def fresh(prefix: str = "Ann") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def test_a_chosen_screen_name_is_what_others_see_and_a_sign_up_without_one_gets_a_generated_name(http) -> None:
    name = fresh()
    r = await http.post(
        "/api/v2/accounts/signup", json={"email": unique_email(), "password": PASSWORD, "screenName": f"  {name} "}
    )
    assert r.status_code == 201, r.text
    assert r.json()["screenName"] == name
    plain = await http.post("/api/v2/accounts/signup", json={"email": unique_email(), "password": PASSWORD})
    assert plain.status_code == 201 and plain.json()["screenName"].startswith("Player-")  # old clients still work
    owner = await sign_up(http)
    me = (await http.get("/api/v2/accounts/me", headers=owner["headers"])).json()
    assert me["name"].startswith("Player-") and owner["email"].split("@")[0] not in me["name"]


@pytest.mark.parametrize(
    ("screen_name", "reason"),
    [
        ("ab", "length"),
        ("x" * 21, "length"),
        ("ann@example.org", "characters"),
        ("ann<b>", "characters"),
        ("-ann", "characters"),
        ("ann  lee", "characters"),
        ("ann\u200bl", "characters"),
        ("FeltSupport", "reserved"),
        ("Dealer1", "reserved"),
    ],
)
async def test_a_malformed_screen_name_is_refused_with_the_field_named(http, screen_name: str, reason: str) -> None:
    email = unique_email()
    r = await http.post(
        "/api/v2/accounts/signup", json={"email": email, "password": PASSWORD, "screenName": screen_name}
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "validation" and body["details"] == {"field": "screenName", "reason": reason}
    # nothing was created: the email is still free
    assert (await http.post("/api/v2/accounts/signup", json={"email": email, "password": PASSWORD})).status_code == 201


async def test_a_taken_screen_name_or_one_holding_the_email_is_refused_and_names_can_change(http) -> None:
    name = fresh("Bo")
    first = await http.post(
        "/api/v2/accounts/signup", json={"email": unique_email(), "password": PASSWORD, "screenName": name}
    )
    assert first.status_code == 201
    email = unique_email()
    taken = await http.post(
        "/api/v2/accounts/signup", json={"email": email, "password": PASSWORD, "screenName": name.upper()}
    )
    assert taken.status_code == 409
    assert taken.json()["code"] == "conflict" and taken.json()["details"] == {"field": "screenName", "reason": "taken"}
    local = email.split("@")[0]
    own = await http.post(
        "/api/v2/accounts/signup", json={"email": email, "password": PASSWORD, "screenName": f"x.{local}"}
    )
    assert own.status_code == 422 and own.json()["details"] == {"field": "screenName", "reason": "email"}

    owner = await sign_up(http)
    other = fresh("Cy")
    renamed = await http.put("/api/v2/accounts/me/name", json={"name": other}, headers=owner["headers"])
    assert renamed.status_code == 200 and renamed.json() == {"participantId": owner["participantId"], "name": other}
    assert (await http.get("/api/v2/accounts/me", headers=owner["headers"])).json()["name"] == other
    clash = await http.put("/api/v2/accounts/me/name", json={"name": name}, headers=owner["headers"])
    assert clash.status_code == 409 and clash.json()["details"] == {"field": "name", "reason": "taken"}
    bad = await http.put("/api/v2/accounts/me/name", json={"name": owner["email"]}, headers=owner["headers"])
    assert bad.status_code == 422 and bad.json()["details"]["field"] == "name"
    assert (await http.get("/api/v2/accounts/me", headers=owner["headers"])).json()["name"] == other  # unchanged
    # the old name is free again; an agent renames itself by its key, and is never named like an email
    again = await http.put("/api/v2/accounts/me/name", json={"name": other.lower()}, headers=owner["headers"])
    assert again.status_code == 200
    agent = await new_agent(http, owner, "robo")
    assert (await http.put("/api/v2/accounts/me/name", json={"name": "Robo 2"}, headers=agent["headers"])).json()[
        "name"
    ] == "Robo 2"
    mail = await http.put("/api/v2/accounts/me/name", json={"name": "robo@example.org"}, headers=agent["headers"])
    assert mail.status_code == 422 and mail.json()["details"] == {"field": "name", "reason": "email"}
    made = await http.post("/api/v2/accounts/agents", json={"name": "me@example.org"}, headers=owner["headers"])
    assert made.status_code == 422 and made.json()["details"]["field"] == "name"


async def test_the_migration_renames_existing_people_and_agents_named_like_emails(database_url: str) -> None:
    """An identity database at its first revision, with names taken from emails, brought to the
    newest: every person has a unique generated name, no name holds an '@', nothing else moved."""
    engine = create_async_engine(database_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.upgrade(_alembic_config("felt_gateway", "gateway", c), "0001"))
            now = datetime.now(UTC)
            for i in range(3):
                await conn.execute(
                    sa.text(
                        "INSERT INTO gw_owners (id, email, password_hash, created_at) VALUES (:id, :email, 'h', :now)"
                    ),
                    {"id": f"o{i}", "email": f"jane.doe{i}@example.org", "now": now},
                )
                await conn.execute(
                    sa.text(
                        "INSERT INTO gw_participants (id, owner_id, kind, name, human_slot, created_at) "
                        "VALUES (:id, :o, 'HUMAN', :name, 'HUMAN', :now)"
                    ),
                    {"id": f"h{i}", "o": f"o{i}", "name": f"jane.doe{i}", "now": now},
                )
            await conn.execute(
                sa.text(
                    "INSERT INTO gw_participants (id, owner_id, kind, name, human_slot, created_at) VALUES "
                    "('a0', 'o0', 'AGENT', 'jane.doe0@example.org bot', NULL, :now), "
                    "('a1', 'o0', 'AGENT', 'Robo', NULL, :now)"
                ),
                {"now": now},
            )
        await migrate(engine, "felt_gateway", "gateway")
        async with engine.connect() as conn:
            rows = {
                r.id: r
                for r in (await conn.execute(sa.text("SELECT id, kind, name, name_key FROM gw_participants"))).all()
            }
    finally:
        await engine.dispose()
    people = [rows[f"h{i}"] for i in range(3)]
    assert all(p.name.startswith("Player-") and p.name_key == p.name.casefold() for p in people)
    assert len({p.name_key for p in people}) == 3
    assert "@" not in rows["a0"].name and rows["a0"].name_key is None
    assert rows["a1"].name == "Robo"
    assert not any("jane" in r.name for r in rows.values())
