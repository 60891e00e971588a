"""The test harness starts each service on a port `free_port()` found free; another process may
take it before the service binds. Such a service is started again on another port, and it is
ready only once its own process answers: another process's `/readyz` on the port once passed
for a wallet that had exited, and a whole test module ran against a stack without a wallet."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from felt_runtime import infra
from tests.support import services
from tests.support.services import ServiceRunner


class AlwaysReady(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # http.server's name for the GET handler
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"status": "ok"}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def squatter() -> Iterator[int]:
    """Another process's server on a port, answering 200 to everything."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), AlwaysReady)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_service_whose_port_was_taken_starts_on_another_and_is_its_own_ready(
    nats_url: str, redis_url: str, tmp_path, squatter: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ports, free = iter([squatter]), infra.free_port
    monkeypatch.setattr(services.infra, "free_port", lambda: next(ports, None) or free())
    runner = ServiceRunner(nats_url, redis_url, tmp_path)
    try:
        timer = runner.start("timer")
        assert timer.port != squatter and timer.listens()
        assert "Address already in use" in timer.log.read_text()  # the first start found the port taken
    finally:
        runner.stop_all()
