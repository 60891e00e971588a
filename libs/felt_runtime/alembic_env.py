"""The shared body of every service's `migrations/env.py`: run online against the
connection that `felt_runtime.db.migrate` passes in."""

from alembic import context


def run() -> None:
    cfg = context.config
    context.configure(
        connection=cfg.attributes["connection"],
        version_table=cfg.attributes["version_table"],
        render_as_batch=True,  # SQLite needs batch mode for ALTER
    )
    with context.begin_transaction():
        context.run_migrations()
