"""A real uvicorn server in a subprocess (several workers), for load and kill tests."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

import httpx

ROOT = Path(__file__).resolve().parents[2]
# The servers' output (JSON log lines, thousands in a Schemathesis run) goes to files, not to pytest's
# terminal; tests/conftest.py adds a server's last lines to the report of a test that fails.
LOGS = Path(tempfile.mkdtemp(prefix="combat-test-servers-"))
atexit.register(shutil.rmtree, LOGS, ignore_errors=True)
READY_SECONDS = 120  # a loaded machine starts uvicorn and its workers slowly


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    started: ClassVar[list[Server]] = []  # every server of the session, in order, for the failure reports

    def __init__(self, database_url: str, workers: int = 2, port: int | None = None, **env: str):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = database_url
        self.workers = workers
        self.env = env
        self.process: subprocess.Popen | None = None
        self.log: Path | None = None

    def start(self) -> Server:
        env = {**os.environ, "DATABASE_URL": self.database_url, **self.env}
        self.log = LOGS / f"{len(Server.started):03d}-port-{self.port}.log"
        Server.started.append(self)
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--port", str(self.port),
                 "--workers", str(self.workers), "--no-access-log", "--log-level", "warning"],
                cwd=ROOT, env=env, start_new_session=True,  # its own process group: SIGKILL takes the workers too
                stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not become ready in {READY_SECONDS} s:\n{self.log_tail()}")

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 60) -> str:
        if self.log is None or not self.log.exists():
            return ""
        with self.log.open("rb") as output:
            output.seek(max(0, output.seek(0, os.SEEK_END) - 64 * 1024))
            return b"\n".join(output.read().splitlines()[-lines:]).decode("utf-8", "replace")

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
