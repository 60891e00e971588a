"""Identity tables (gateway-owned) as SQLAlchemy Core; the schema itself is the Alembic migration."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

owners = sa.Table(
    "gw_owners",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("email", sa.String(254), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

participants = sa.Table(
    "gw_participants",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("owner_id", sa.String(32), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("human_slot", sa.String(8), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

tokens = sa.Table(
    "gw_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("owner_id", sa.String(32), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

api_keys = sa.Table(
    "gw_api_keys",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("participant_id", sa.String(32), nullable=False),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)
