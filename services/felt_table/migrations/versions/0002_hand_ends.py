"""table: the end of each hand (settle or cancel) as a durable intent until the wallet answers"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "table_hand_ends",
        sa.Column("hand_id", sa.String(100), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False, index=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("request", sa.Text, nullable=False),
        sa.Column("acked", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_hand_ends")
