"""screen names: a unique name per person (`name_key`), existing people renamed to generated
names (their names were taken from their email addresses), agents' names freed of any '@'"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

_participants = sa.table(
    "gw_participants",
    sa.column("id", sa.String),
    sa.column("kind", sa.String),
    sa.column("name", sa.String),
    sa.column("name_key", sa.String),
)


def upgrade() -> None:
    with op.batch_alter_table("gw_participants") as batch:
        batch.add_column(sa.Column("name_key", sa.String(64), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(sa.select(_participants.c.id, _participants.c.kind, _participants.c.name)).all()
    taken: set[str] = set()
    for row in rows:
        if row.kind == "HUMAN":
            # the same form as felt_gateway.screen_names.generated (a migration never imports the app)
            name = f"Player-{secrets.randbelow(900_000) + 100_000}"
            while name.casefold() in taken:
                name = f"Player-{secrets.randbelow(900_000) + 100_000}"
            taken.add(name.casefold())
            values = {"name": name, "name_key": name.casefold()}
        elif "@" in row.name:
            values = {"name": f"agent-{row.id[:8]}"}
        else:
            continue
        conn.execute(_participants.update().where(_participants.c.id == row.id).values(**values))
    op.create_index("uq_gw_screen_name", "gw_participants", ["name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_gw_screen_name", table_name="gw_participants")
    with op.batch_alter_table("gw_participants") as batch:
        batch.drop_column("name_key")
