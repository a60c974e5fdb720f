"""Browser tests: the real service under uvicorn, driven through Debian's Chromium (headless).

Playwright's Python package drives /usr/bin/chromium (scripts/ensure-chromium installs it): no
browser is downloaded. Each test gets its own server on a free port of 8600-8699 against the
session's databases (SQLite and PostgreSQL), emptied first, and its own browser context.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import empty_tables
from tests.load.server import ROOT, Server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The machine's notes: without these, Chromium reaches out (updates, sync, QUIC) or needs a GPU/sandbox.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PORTS = range(8600, 8700)


def free_port(taken: set[int] = frozenset()) -> int:
    """A port of this engineer's range that nobody listens on now."""
    for port in PORTS:
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}..{PORTS.stop - 1}")


class TableServer(Server):
    """One uvicorn worker on a port of our range; restartable on the same port and database."""

    def __init__(self, database_url: str, port: int | None = None, **env: str):
        super().__init__(database_url, workers=1, **env)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"


# Per module, not per session: Playwright's sync API keeps an asyncio loop running in this thread
# while it is open, and asyncio.run() in any later test (the event hub's) would then refuse to start.
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium (make test does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # launch() gives every run a new empty --user-data-dir of its own.
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def clean_database(database_url) -> str:
    empty_tables(database_url)
    return database_url


@pytest.fixture
def server(clean_database) -> Iterator[TableServer]:
    with TableServer(clean_database) as running:
        yield running


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the run's screenshots go: SCREENSHOT_DIR, else var/screenshots/<time> in the checkout
    (pytest's own tmp folders are pruned after three runs, by anyone's runs on a shared machine)."""
    default = ROOT / "var" / "screenshots" / time.strftime("%Y%m%d-%H%M%S")
    folder = Path(os.environ.get("SCREENSHOT_DIR") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


AXE_VERSION = "4.14.1"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core from the npm registry, installed once into a cache folder (AXE_CACHE, else
    ~/.cache/combat-tests/axe-core-<version>); the tests inject it through the driver, never the app."""
    default = Path.home() / ".cache" / "combat-tests" / f"axe-core-{AXE_VERSION}"
    folder = Path(os.environ.get("AXE_CACHE") or default)
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is missing: the accessibility check installs axe-core with it")
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(folder),
                        f"axe-core@{AXE_VERSION}"], check=True, timeout=300)
    return script.read_text(encoding="utf-8")
