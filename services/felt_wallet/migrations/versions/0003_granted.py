"""granted: chips the house gave each account (the starting grant and refills), kept on the
account so the leaderboard and session history can say how much of a total came from grants"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("wallet_accounts") as batch:
        batch.add_column(sa.Column("granted", sa.BigInteger, nullable=False, server_default="0"))
        batch.add_column(sa.Column("refilled", sa.BigInteger, nullable=False, server_default="0"))
    op.execute(
        "UPDATE wallet_accounts SET granted = COALESCE((SELECT SUM(t.amount) FROM wallet_transfers t "
        "WHERE t.account_id = wallet_accounts.account_id AND t.kind IN ('grant', 'refill')), 0)"
    )


def downgrade() -> None:
    with op.batch_alter_table("wallet_accounts") as batch:
        batch.drop_column("refilled")
        batch.drop_column("granted")
