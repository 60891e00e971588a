from felt_runtime.service import main
from felt_table.app import build

main("table", build)
