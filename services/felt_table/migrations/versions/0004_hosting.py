"""table: a hosted table's state (pause, invite hash, removed players, requests to sit) and
whether it closed for good"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.add_column("table_configs", sa.Column("host_state", sa.Text, nullable=True))
    op.add_column("table_configs", sa.Column("closed", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("table_configs", "closed")
    op.drop_column("table_configs", "host_state")
