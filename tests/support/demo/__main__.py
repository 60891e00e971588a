from felt_runtime.service import main
from tests.support.demo import build

main("demo", build)
