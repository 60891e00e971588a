from felt_runtime.alembic_env import run

run()
