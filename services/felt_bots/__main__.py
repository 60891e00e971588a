from felt_bots.app import build
from felt_runtime.service import main

main("bots", build)
