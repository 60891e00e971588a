"""limits: events seen, daily counters, sessions, caps, freezes, request idempotency"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "limits_events",
        sa.Column("event_id", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "limits_daily",
        sa.Column("scope", sa.String(20), primary_key=True),
        sa.Column("scope_id", sa.String(200), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("buy_in", sa.BigInteger, nullable=False),
        sa.Column("wager", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "limits_sessions",
        sa.Column("session_id", sa.String(500), primary_key=True),
        sa.Column("owner_id", sa.String(200), nullable=True),
        sa.Column("account_id", sa.String(200), nullable=True),
        sa.Column("bought_in", sa.BigInteger, nullable=False),
        sa.Column("cashed_out", sa.BigInteger, nullable=False),
        sa.Column("wager", sa.BigInteger, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("closed", sa.Boolean, nullable=False),
    )
    op.create_index("ix_limits_sessions_owner_id", "limits_sessions", ["owner_id"])
    op.create_index("ix_limits_sessions_account_id", "limits_sessions", ["account_id"])
    op.create_table(
        "limits_session_hands",
        sa.Column("session_id", sa.String(500), primary_key=True),
        sa.Column("hand_id", sa.String(200), primary_key=True),
    )
    op.create_table(
        "limits_caps",
        sa.Column("scope", sa.String(20), primary_key=True),
        sa.Column("scope_id", sa.String(200), primary_key=True),
        sa.Column("limit_name", sa.String(40), primary_key=True),
        sa.Column("cap", sa.BigInteger, nullable=True),
        sa.Column("pending_cap", sa.BigInteger, nullable=True),
        sa.Column("pending_effective_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "limits_freezes",
        sa.Column("scope", sa.String(20), primary_key=True),
        sa.Column("scope_id", sa.String(200), primary_key=True),
        sa.Column("frozen", sa.Boolean, nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "limits_requests",
        sa.Column("message_id", sa.String(200), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("result", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in (
        "limits_requests",
        "limits_freezes",
        "limits_caps",
        "limits_session_hands",
        "limits_sessions",
        "limits_daily",
        "limits_events",
    ):
        op.drop_table(name)
