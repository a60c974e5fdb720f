"""The README's walkthrough, as a newcomer pastes it: every `sh` block of the curl sections, in order, run
by bash (`set -eo pipefail`) against a live server on 127.0.0.1 with a fresh SQLite database. No command
may fail, and none may print `null` where the README expects a value (a refused request piped through
`jq .id` prints exactly that), nor a 5xx problem."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from bench.loadkit import Server
from tests.conftest import migrate

ROOT = Path(__file__).resolve().parents[2]
# The sections a newcomer runs against `make run` (not `make test`'s database, not docker compose).
SKIPPED = ("## Two commands", "### The test database", "## Docker compose")


def walkthrough(readme: str) -> list[str]:
    blocks, section = [], ""
    for match in re.finditer(r"^(#{2,3} [^\n]*)$|^```sh\n(.*?)^```", readme, re.M | re.S):
        if match.group(1):
            section = match.group(1)
        elif not section.startswith(SKIPPED):
            blocks.append(match.group(2))
    return blocks


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl and jq")
def test_the_readme_walkthrough_runs_as_written(tmp_path):
    blocks = walkthrough((ROOT / "README.md").read_text())
    assert len(blocks) >= 10
    url = f"sqlite:///{tmp_path / 'combat.db'}"
    migrate(url)
    port = free_port()
    env = {"DATABASE_URL": url, "CAMPAIGNS_PER_ADDRESS_PER_HOUR": "1000", "LOG_LEVEL": "WARNING",
           "RATE_LIMIT_STORAGE": "memory://"}
    script = "set -eo pipefail\n" + "\n".join(blocks).replace("http://127.0.0.1:8000", f"http://127.0.0.1:{port}")
    # The event stream never ends by itself (the README runs it in a second terminal): a few seconds of it.
    script = re.sub(r"^curl -N ([^#\n]*)(#.*)?$", r"timeout 3 curl -N \1 || [ $? -eq 124 ]", script, flags=re.M)
    with Server("service", ["app.main:create_app", "--factory"], port, env, tmp_path / "server.log") as server:
        assert server.url.startswith("http://127.0.0.1:")
        done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert "null" not in lines, output[-3000:]
    assert not re.search(r'"status": 5\d\d', done.stdout), output[-3000:]
