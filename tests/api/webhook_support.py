"""Helpers for the webhook tests: a local receiver (127.0.0.1 only) that records every request and answers
as told, a Discord stand-in that enforces Discord's documented limits, stub resolvers, a transport that
fails the test on any connection, and polling with generous deadlines."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import orjson

from tests.waiting import wait_for

__all__ = ["wait_for"]  # the webhook tests' one import

@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class Receiver:
    """Answers each request with `answer(request)` -> (status, body, headers); records it first."""

    answer: Callable[[Received], tuple[int, bytes, dict[str, str]]] = lambda _r: (204, b"", {})
    received: list[Received] = field(default_factory=list)
    delay: float = 0.0
    server: ThreadingHTTPServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    most_in_flight: int = 0

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def bodies(self) -> list[Any]:
        with self.lock:
            return [r.json() for r in self.received if r.body]


@contextmanager
def serving(receiver: Receiver) -> Iterator[Receiver]:
    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                               self.rfile.read(length))
            with receiver.lock:
                receiver.received.append(request)
                receiver.in_flight += 1
                receiver.most_in_flight = max(receiver.most_in_flight, receiver.in_flight)
            try:
                if receiver.delay:
                    time.sleep(receiver.delay)
                status, body, headers = receiver.answer(request)
            finally:
                with receiver.lock:
                    receiver.in_flight -= 1
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_PATCH = do_GET = _handle

        def log_message(self, *_args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def stub_resolver(answers: dict[str, list[str]]) -> Callable[[str, int], Any]:
    async def resolve(host: str, _port: int) -> list[str]:
        if host not in answers:
            raise OSError(f"no such host {host}")
        return answers[host]

    return resolve


class NoConnections(httpx.AsyncBaseTransport):
    """The inner transport of a test that must never connect: any attempt is recorded and fails."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.attempts.append(str(request.url))
        raise AssertionError(f"a connection was attempted to {request.url}")
