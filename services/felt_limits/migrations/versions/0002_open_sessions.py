"""limits: open sessions found by owner and by account (the exposure a buy-in check sums)

With an index on the owner (or account) alone, a buy-in check would read every session the scope
ever had, open or closed, and cost more the longer the owner's history. With `closed` in the index
it reads the open ones only."""

from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.drop_index("ix_limits_sessions_owner_id", "limits_sessions")
    op.drop_index("ix_limits_sessions_account_id", "limits_sessions")
    op.create_index("ix_limits_sessions_owner_open", "limits_sessions", ["owner_id", "closed"])
    op.create_index("ix_limits_sessions_account_open", "limits_sessions", ["account_id", "closed"])


def downgrade() -> None:
    op.drop_index("ix_limits_sessions_account_open", "limits_sessions")
    op.drop_index("ix_limits_sessions_owner_open", "limits_sessions")
    op.create_index("ix_limits_sessions_owner_id", "limits_sessions", ["owner_id"])
    op.create_index("ix_limits_sessions_account_id", "limits_sessions", ["account_id"])
