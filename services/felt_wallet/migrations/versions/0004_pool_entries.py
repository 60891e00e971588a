"""wallet: tournament buy-ins into prize pools"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "wallet_pool_entries",
        sa.Column("entry_id", sa.String(200), primary_key=True),
        sa.Column("pool_id", sa.String(200), nullable=False),
        sa.Column("account_id", sa.String(200), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("refunded", sa.Boolean, nullable=False),
    )
    op.create_index("ix_wallet_pool_entries_pool", "wallet_pool_entries", ["pool_id"])


def downgrade() -> None:
    op.drop_index("ix_wallet_pool_entries_pool", "wallet_pool_entries")
    op.drop_table("wallet_pool_entries")
