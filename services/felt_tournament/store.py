"""The tournament service's tables: each tournament's definition and status, and its entries."""

from __future__ import annotations

import sqlalchemy as sa

ID = 200
metadata = sa.MetaData()

tournaments = sa.Table(
    "tournament_tournaments",
    metadata,
    sa.Column("tournament_id", sa.String(64), primary_key=True),
    sa.Column("definition", sa.Text, nullable=False),  # TournamentDefinition as JSON
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True)),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
    sa.Column("play", sa.Text),  # play.Play as JSON once it started: its table, level clock, busts
    sa.Index("ix_tournament_tournaments_status", "status"),
)
entries = sa.Table(
    "tournament_entries",
    metadata,
    sa.Column("entry_id", sa.String(ID + 80), primary_key=True),
    sa.Column("tournament_id", sa.String(64), nullable=False),
    sa.Column("account_id", sa.String(ID), nullable=False),
    sa.Column("owner_id", sa.String(ID), nullable=False),
    sa.Column("message_id", sa.String(ID), nullable=False),  # the Register it came from (its retries)
    sa.Column("number", sa.Integer, nullable=False),  # the account's 1st, 2nd (re-)entry here
    sa.Column("status", sa.String(16), nullable=False),
    #: limits allowed the buy-in: a registration left half-way is finished, not dropped
    sa.Column("checked", sa.Boolean, nullable=False),
    sa.Column("place", sa.Integer),
    sa.Column("prize", sa.BigInteger, nullable=False),
    sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
    #: who sits down at the tournament's table: a person or an agent, and the name shown there
    sa.Column("kind", sa.String(8), nullable=False, server_default="agent"),
    sa.Column("name", sa.String(50), nullable=False, server_default=""),
    sa.Index("ix_tournament_entries_tournament", "tournament_id", "account_id"),
)
