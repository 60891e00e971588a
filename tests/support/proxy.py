"""A real TCP proxy between one service and NATS, to lose a reply for real: once a marker (a
subject) has passed towards the service, everything the service sends is held until `thaw`,
so the service applies the request while its caller hears nothing."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field

from felt_runtime import infra


@dataclass
class ReplyHoldingProxy:
    upstream: tuple[str, int]
    port: int = field(default_factory=infra.free_port)
    flowing: threading.Event = field(default_factory=threading.Event)
    held_after: bytes | None = None  # armed: freeze the service's replies once this passed to it
    passed: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.flowing.set()
        self.server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def hold_replies_after(self, marker: bytes) -> None:
        self.passed.clear()
        self.held_after = marker

    def thaw(self) -> None:
        self.held_after = None
        self.flowing.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, to_service: bool) -> None:
        try:
            while chunk := src.recv(65536):
                if not to_service:
                    self.flowing.wait()
                dst.sendall(chunk)
                if to_service and self.held_after is not None and self.held_after in chunk:
                    self.flowing.clear()
                    self.passed.set()
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.server.close()
        self.thaw()
