from felt_runtime.service import main
from felt_timer.app import build

main("timer", build)
