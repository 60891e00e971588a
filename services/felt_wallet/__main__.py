from felt_runtime.service import main
from felt_wallet.app import build

main("wallet", build)
