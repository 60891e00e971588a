from felt_runtime.service import main

from felt_tournament.app import build

main("tournament", build)
