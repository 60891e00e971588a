"""tournament: who an entry is at the table (a person or an agent, and their name)"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.add_column("tournament_entries", sa.Column("kind", sa.String(8), nullable=False, server_default="agent"))
    op.add_column("tournament_entries", sa.Column("name", sa.String(50), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("tournament_entries", "name")
    op.drop_column("tournament_entries", "kind")
