"""Helpers for the event-stream tests: the app served by a real uvicorn in a thread (a streaming response
needs a real server: the TestClient waits for a response to end), and a reader of SSE events that never
blocks past a deadline."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import uvicorn
from fastapi import FastAPI

from tests.waiting import wait_for

PORTS = range(9100, 9150)  # this engineer's range (bench/events_bench.py takes 9150-9199)


def free_socket() -> socket.socket:
    for port in PORTS:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        return sock
    raise RuntimeError("no free port in 9100-9149")


class Served:
    """A FastAPI app behind uvicorn on 127.0.0.1, in a background thread."""

    def __init__(self, app: FastAPI):
        self.app = app
        self.socket = free_socket()
        self.base_url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
        )
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        wait_for(lambda: self.server.started or not self.thread.is_alive(), "the server to start")
        assert self.server.started, "the server did not start"
        return self

    def __exit__(self, *_exc) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.socket.close()

    @property
    def hub(self):
        return self.app.state.events

    def client(self, secret: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        # generous: a timeout here guards against a hang, it does not measure speed
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=httpx.Timeout(30.0))


@dataclass
class SSE:
    event: str = "message"
    id: str | None = None
    data: str = ""

    def json(self) -> Any:
        return orjson.loads(self.data)


@dataclass
class EventReader:
    """Reads one open stream: events in order, comment lines counted."""

    response: httpx.Response
    comments: int = 0
    _lines: Iterator[str] | None = field(default=None, repr=False)

    def next(self, timeout: float = 10.0) -> SSE:
        lines = self._lines = self._lines or self.response.iter_lines()
        deadline = time.monotonic() + timeout
        current, seen = SSE(), False
        for line in lines:  # the keep-alive comments (0.2 s in these tests) bound each wait
            if line == "":
                if seen:
                    return current
            elif line.startswith(":"):
                self.comments += 1
            else:
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                seen = True
                if name == "event":
                    current.event = value
                elif name == "id":
                    current.id = value
                elif name == "data":
                    current.data = value if not current.data else current.data + "\n" + value
            if time.monotonic() > deadline:
                break
        raise AssertionError(f"no event within {timeout} s (stream ended: {self.response.is_closed})")

    def comment(self, timeout: float = 5.0) -> None:
        """Wait for a keep-alive comment line (and fail on an event before it)."""
        lines = self._lines = self._lines or self.response.iter_lines()
        deadline = time.monotonic() + timeout
        for line in lines:
            if line.startswith(":"):
                self.comments += 1
                return
            assert line == "", f"an event came before a keep-alive: {line!r}"
            if time.monotonic() > deadline:
                break
        raise AssertionError(f"no comment within {timeout} s")

    def end(self, timeout: float = 10.0) -> None:
        """Wait for the server to end the stream (keep-alives may come first, events may not)."""
        lines = self._lines = self._lines or self.response.iter_lines()
        deadline = time.monotonic() + timeout
        for line in lines:
            assert line == "" or line.startswith(":"), f"an event instead of the end: {line!r}"
            if time.monotonic() > deadline:
                raise AssertionError(f"the stream did not end within {timeout} s")

    def until(self, kind: str, timeout: float = 10.0) -> SSE:
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.1, deadline - time.monotonic()))
            if event.event == kind:
                return event
