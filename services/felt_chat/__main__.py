from felt_chat.app import build
from felt_runtime.service import main

main("chat", build)
