"""tournament: tournaments and their entries"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "tournament_tournaments",
        sa.Column("tournament_id", sa.String(64), primary_key=True),
        sa.Column("definition", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_tournament_tournaments_status", "tournament_tournaments", ["status"])
    op.create_table(
        "tournament_entries",
        sa.Column("entry_id", sa.String(280), primary_key=True),
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(200), nullable=False),
        sa.Column("owner_id", sa.String(200), nullable=False),
        sa.Column("message_id", sa.String(200), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("checked", sa.Boolean, nullable=False),
        sa.Column("place", sa.Integer),
        sa.Column("prize", sa.BigInteger, nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_tournament_entries_tournament", "tournament_entries", ["tournament_id", "account_id"])


def downgrade() -> None:
    op.drop_table("tournament_entries")
    op.drop_table("tournament_tournaments")
