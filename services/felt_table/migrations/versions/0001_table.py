"""table: created tables, numbered events, finished hands"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "table_configs",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "table_events",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("hand_id", sa.String(100), nullable=True),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_table(
        "table_hands",
        sa.Column("hand_id", sa.String(100), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False, index=True),
        sa.Column("rules_version", sa.String(50), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("participants", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_hands")
    op.drop_table("table_events")
    op.drop_table("table_configs")
