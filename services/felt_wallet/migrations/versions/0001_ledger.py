"""wallet ledger: accounts, ledger accounts, hands, contributions, sessions, commands, transfers, outbox"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None

ID = 200
KEY = 500


def upgrade() -> None:
    op.create_table(
        "wallet_accounts",
        sa.Column("account_id", sa.String(ID), primary_key=True),
        sa.Column("owner_id", sa.String(ID)),
        sa.Column("in_play", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("in_play >= 0", name="ck_wallet_accounts_in_play"),
    )
    op.create_table(
        "wallet_ledger",
        sa.Column("key", sa.String(KEY), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account_id", sa.String(ID)),
        sa.Column("table_id", sa.String(ID)),
        sa.Column("hand_id", sa.String(ID)),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.CheckConstraint("kind = 'house' OR balance >= 0", name="ck_wallet_ledger_not_negative"),
    )
    op.create_index("ix_wallet_ledger_account", "wallet_ledger", ["account_id"])
    op.create_table(
        "wallet_hands",
        sa.Column("hand_id", sa.String(ID), primary_key=True),
        sa.Column("table_id", sa.String(ID), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_wallet_hands_table_status", "wallet_hands", ["table_id", "status"])
    op.create_table(
        "wallet_contributions",
        sa.Column("hand_id", sa.String(ID), primary_key=True),
        sa.Column("account_id", sa.String(ID), primary_key=True),
        sa.Column("source", sa.String(10), primary_key=True),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("session_id", sa.String(64)),
    )
    op.create_table(
        "wallet_sessions",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(ID), nullable=False),
        sa.Column("table_id", sa.String(ID), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("buy_in", sa.BigInteger, nullable=False),
        sa.Column("cash_out", sa.BigInteger, nullable=False),
        sa.Column("gross_wagers", sa.BigInteger, nullable=False),
        sa.Column("hands_played", sa.Integer, nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_wallet_sessions_account_status", "wallet_sessions", ["account_id", "status"])
    op.create_index("ix_wallet_sessions_table_status", "wallet_sessions", ["table_id", "status"])
    op.create_table(
        "wallet_commands",
        sa.Column("key", sa.String(KEY), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("result", sa.Text, nullable=False),
    )
    op.create_table(
        "wallet_transfers",
        sa.Column("transfer_id", sa.String(KEY), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("debit", sa.String(KEY), nullable=False),
        sa.Column("credit", sa.String(KEY), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("account_id", sa.String(ID), nullable=False),
        sa.Column("owner_id", sa.String(ID)),
        sa.Column("session_id", sa.String(64)),
        sa.Column("table_id", sa.String(ID)),
        sa.Column("hand_id", sa.String(ID)),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount > 0", name="ck_wallet_transfers_amount"),
    )
    op.create_table(
        "wallet_outbox",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("transfer_id", sa.String(KEY), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sqlite_autoincrement=True,  # never reuse a seq after the relay deleted the rows
    )


def downgrade() -> None:
    for name in (
        "wallet_outbox",
        "wallet_transfers",
        "wallet_commands",
        "wallet_sessions",
        "wallet_contributions",
        "wallet_hands",
        "wallet_ledger",
        "wallet_accounts",
    ):
        op.drop_table(name)
