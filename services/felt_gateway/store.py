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
    sa.Column("owner_id", sa.String(32), sa.ForeignKey("gw_owners.id"), nullable=False, index=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("human_slot", sa.String(8), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    #: a person's screen name as compared for uniqueness (`screen_names.key`); NULL for agents
    sa.Column("name_key", sa.String(64), nullable=True),
    sa.UniqueConstraint("owner_id", "human_slot", name="uq_gw_one_human_per_owner"),
    sa.Index("uq_gw_screen_name", "name_key", unique=True),
)

tokens = sa.Table(
    "gw_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("owner_id", sa.String(32), sa.ForeignKey("gw_owners.id"), nullable=False, index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

api_keys = sa.Table(
    "gw_api_keys",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("participant_id", sa.String(32), sa.ForeignKey("gw_participants.id"), nullable=False, index=True),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)
