"""table: each dealt player's result of a settled hand (the ladder, benchmark matches)"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "table_hand_results",
        sa.Column("hand_id", sa.String(100), primary_key=True),
        sa.Column("participant_id", sa.String(200), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False, index=True),
        sa.Column("opponents", sa.Text, nullable=False),
        sa.Column("net", sa.BigInteger, nullable=False),
        sa.Column("unit", sa.BigInteger, nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_hand_results")
