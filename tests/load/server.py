"""A real uvicorn server in a subprocess (several workers), for load and kill tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, database_url: str, workers: int = 2, port: int | None = None, **env: str):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = database_url
        self.workers = workers
        self.env = env
        self.process: subprocess.Popen | None = None

    def start(self) -> Server:
        env = {**os.environ, "DATABASE_URL": self.database_url, **self.env}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--port", str(self.port),
             "--workers", str(self.workers), "--no-access-log", "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True,  # its own process group: SIGKILL takes the workers too
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not become ready in 30 s")

    def kill(self) -> None:
        """SIGKILL the whole process group: no shutdown handlers, no flushing."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
