"""tournament: the play of a running tournament (its table, the events read, the level clock, busts)"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.add_column("tournament_tournaments", sa.Column("play", sa.Text))


def downgrade() -> None:
    op.drop_column("tournament_tournaments", "play")
