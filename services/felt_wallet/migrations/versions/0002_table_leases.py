"""wallet: the newest table-replica lease seen per table (fencing)"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "wallet_table_leases",
        sa.Column("table_id", sa.String(200), primary_key=True),
        sa.Column("lease", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("wallet_table_leases")
