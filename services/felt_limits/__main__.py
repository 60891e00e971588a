from felt_runtime.service import main

from felt_limits.app import build

main("limits", build)
